// The bench server's C engine: the same responses as server.mjs (which builds
// them and hands them over as files), served by one epoll thread whose cost
// per request is nearly all the kernel's send and receive, and which never
// pauses for a garbage collector. On a 2-core
// machine the server shares the cores with the client it measures: the less
// it takes, and the more promptly it reads, the less of its own delay is
// counted as the client's TTFT error.
//
//   bench-server --prebuilt DIR [--port 0] [--paced-ms 10] [--tokens N]
//                [--exit-on-stdin-end]
//
// DIR holds stream_all, nonstream_all, first_paced, events (the paced events
// back to back) with events.idx (their byte offsets, one per line, N + 1 of
// them), health, version, models and notfound (whole HTTP responses).
// Behaviour and the /_records, /_stats routes are those documented in
// server.mjs; it prints the same JSON line when it listens.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECORDS 4000000
#define MAX_ID 64

typedef struct {
  char *p;
  size_t n;
} blob;

typedef struct conn {
  int fd;
  char *in;  // unparsed request bytes
  size_t in_len, in_cap;
  char *out;  // bytes the socket did not take yet
  size_t out_off, out_len, out_cap;
  int paced;  // index into the active list + 1 while a paced stream runs
  int next;   // next paced event
  uint64_t arrived;  // when the kernel received the last bytes read (CLOCK_MONOTONIC ns)
} conn;

static blob stream_all, nonstream_all, first_paced, events, health, version, models, notfound;
static size_t *event_off;  // tokens + 1 offsets into events
static int tokens = 100;
static double paced_ms = 0;
static int epfd;

static struct {
  uint64_t requests, streams, non_stream, events_written, ticks, max_active, socket_errors, connections;
  double tick_lag_max_ms, tick_lag_sum_ms, tick_work_max_ms, tick_work_sum_ms;
} st;

// Truth records: ids in one pool, [arrival, first write, read] ns per record.
// The arrival is the kernel's receive time of the request's last bytes
// (SO_TIMESTAMPNS), so a request that waits in the socket while this thread
// writes a tick's events counts as the server's time, not the client's.
static char (*rec_id)[MAX_ID];
static uint64_t *rec_t;
static size_t rec_n;

static conn **active;  // paced streams
static size_t n_active, cap_active;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

static blob load(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) die(path);
  struct stat s;
  if (fstat(fileno(f), &s) != 0) die(path);
  blob b = {malloc(s.st_size + 1), (size_t)s.st_size};
  if (!b.p || fread(b.p, 1, b.n, f) != b.n) die(path);
  fclose(f);
  return b;
}

static void append(char **buf, size_t *len, size_t *cap, const char *p, size_t n) {
  if (*len + n > *cap) {
    size_t c = *cap ? *cap : 4096;
    while (c < *len + n) c *= 2;
    *buf = realloc(*buf, c);
    if (!*buf) die("realloc");
    *cap = c;
  }
  memcpy(*buf + *len, p, n);
  *len += n;
}

// Closed connections are freed after the current epoll batch, which may
// still hold events for them.
static conn **closed;
static size_t n_closed, cap_closed;

static void close_conn(conn *c) {
  if (c->fd < 0) return;
  if (c->paced) {
    size_t i = c->paced - 1;
    active[i] = active[--n_active];
    active[i]->paced = i + 1;
    c->paced = 0;
  }
  close(c->fd);
  c->fd = -1;
  if (n_closed == cap_closed) {
    cap_closed = cap_closed ? cap_closed * 2 : 64;
    closed = realloc(closed, cap_closed * sizeof *closed);
    if (!closed) die("realloc");
  }
  closed[n_closed++] = c;
}

static void free_closed(void) {
  for (size_t i = 0; i < n_closed; i++) {
    free(closed[i]->in);
    free(closed[i]->out);
    free(closed[i]);
  }
  n_closed = 0;
}

// Writes what the socket takes; keeps the rest and asks for EPOLLOUT.
// Returns 0 when the connection was closed.
static int send_bytes(conn *c, const char *p, size_t n) {
  if (c->out_len == c->out_off) {
    while (n > 0) {
      ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) break;
        st.socket_errors++;
        close_conn(c);
        return 0;
      }
      p += w;
      n -= (size_t)w;
    }
    if (n == 0) return 1;
    c->out_off = c->out_len = 0;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
  }
  append(&c->out, &c->out_len, &c->out_cap, p, n);
  return 1;
}

static int flush_out(conn *c) {
  while (c->out_off < c->out_len) {
    ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return 1;
      st.socket_errors++;
      close_conn(c);
      return 0;
    }
    c->out_off += (size_t)w;
  }
  c->out_off = c->out_len = 0;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
  epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
  return 1;
}

static int simple(conn *c, const char *status, const char *body, size_t n) {
  char head[256];
  int h = snprintf(head, sizeof head, "HTTP/1.1 %s\r\ncontent-type: application/json\r\nconnection: keep-alive\r\ncontent-length: %zu\r\n\r\n", status, n);
  return send_bytes(c, head, (size_t)h) && send_bytes(c, body, n);
}

static const char *find_ci(const char *h, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= n; i++)
    if (strncasecmp(h + i, needle, k) == 0) return h + i;
  return NULL;
}

// "stream" : true anywhere in the body (what server.mjs's regular expression matches).
static int stream_true(const char *b, size_t n) {
  for (size_t i = 0; i + 8 <= n; i++) {
    if (memcmp(b + i, "\"stream\"", 8) != 0) continue;
    size_t j = i + 8;
    while (j < n && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n')) j++;
    if (j >= n || b[j] != ':') continue;
    j++;
    while (j < n && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n')) j++;
    if (j + 4 <= n && memcmp(b + j, "true", 4) == 0) return 1;
  }
  return 0;
}

static void record(const char *rid, size_t rn, uint64_t arrival, uint64_t read) {
  if (rid == NULL || rec_n >= MAX_RECORDS) return;
  if (rn >= MAX_ID) rn = MAX_ID - 1;
  memcpy(rec_id[rec_n], rid, rn);
  rec_id[rec_n][rn] = 0;
  rec_t[3 * rec_n] = arrival;
  rec_t[3 * rec_n + 1] = now_ns();
  rec_t[3 * rec_n + 2] = read;
  rec_n++;
}

static void json_string(char **buf, size_t *len, size_t *cap, const char *s) {
  append(buf, len, cap, "\"", 1);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') append(buf, len, cap, "\\", 1);
    if ((unsigned char)*s < 0x20) continue;
    append(buf, len, cap, s, 1);
  }
  append(buf, len, cap, "\"", 1);
}

static int send_records(conn *c) {
  char *b = NULL;
  size_t n = 0, cap = 0;
  const char *open = "{\"clock\":\"CLOCK_MONOTONIC_ns\",\"records\":{";
  append(&b, &n, &cap, open, strlen(open));
  char num[64];
  for (size_t i = 0; i < rec_n; i++) {
    if (i) append(&b, &n, &cap, ",", 1);
    json_string(&b, &n, &cap, rec_id[i]);
    int k = snprintf(num, sizeof num, ":[\"%llu\",\"%llu\",\"%llu\"]", (unsigned long long)rec_t[3 * i], (unsigned long long)rec_t[3 * i + 1],
                     (unsigned long long)rec_t[3 * i + 2]);
    append(&b, &n, &cap, num, (size_t)k);
  }
  append(&b, &n, &cap, "}}", 2);
  int ok = simple(c, "200 OK", b, n);
  free(b);
  return ok;
}

static int send_stats(conn *c) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  char b[1024];
  int n = snprintf(b, sizeof b,
                   "{\"requests\":%llu,\"streams\":%llu,\"nonStream\":%llu,\"eventsWritten\":%llu,\"ticks\":%llu,\"tickLagMaxMs\":%.3f,"
                   "\"tickLagSumMs\":%.3f,\"maxActive\":%llu,\"socketErrors\":%llu,\"connections\":%llu,\"tickLagMeanMs\":%.4f,\"tickWorkMeanMs\":%.4f,\"tickWorkMaxMs\":%.3f,\"active\":%zu,"
                   "\"cpuUserS\":%.6f,\"cpuSysS\":%.6f,\"tokens\":%d,\"pacedMs\":%g,\"engine\":\"c\"}",
                   (unsigned long long)st.requests, (unsigned long long)st.streams, (unsigned long long)st.non_stream,
                   (unsigned long long)st.events_written, (unsigned long long)st.ticks, st.tick_lag_max_ms, st.tick_lag_sum_ms,
                   (unsigned long long)st.max_active, (unsigned long long)st.socket_errors, (unsigned long long)st.connections,
                   st.ticks ? st.tick_lag_sum_ms / (double)st.ticks : 0.0, st.ticks ? st.tick_work_sum_ms / (double)st.ticks : 0.0,
                   st.tick_work_max_ms, n_active, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
                   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, tokens, paced_ms);
  return simple(c, "200 OK", b, (size_t)n);
}

// One complete request: method, path, body, x-request-id. Returns 0 when the connection was closed.
static int handle(conn *c, const char *head, size_t hn, const char *body, size_t bn) {
  const char *sp1 = memchr(head, ' ', hn);
  if (!sp1) return simple(c, "400 Bad Request", "{}", 2);
  const char *path = sp1 + 1;
  const char *sp2 = memchr(path, ' ', hn - (size_t)(path - head));
  size_t pn = sp2 ? (size_t)(sp2 - path) : hn - (size_t)(path - head);
  int post = sp1 - head == 4 && memcmp(head, "POST", 4) == 0;
  int get = sp1 - head == 3 && memcmp(head, "GET", 3) == 0;
  int del = sp1 - head == 6 && memcmp(head, "DELETE", 6) == 0;
#define PATH_IS(s) (pn == strlen(s) && memcmp(path, s, pn) == 0)
  if (post && pn >= 15 && memcmp(path, "/v1/completions", 15) == 0) {
    st.requests++;
    const char *rid = NULL;
    size_t rn = 0;
    const char *r = find_ci(head, hn, "\r\nx-request-id:");
    if (r) {
      rid = r + 15;
      const char *e = head + hn;
      const char *crlf = memmem(rid, (size_t)(e - rid), "\r\n", 2);
      if (crlf) e = crlf;
      while (rid < e && (*rid == ' ' || *rid == '\t')) rid++;
      while (e > rid && (e[-1] == ' ' || e[-1] == '\t')) e--;
      rn = (size_t)(e - rid);
    }
    uint64_t read = rid ? now_ns() : 0;
    uint64_t arrival = c->arrived && c->arrived <= read ? c->arrived : read;
    const int stream = stream_true(body, bn);
    record(rid, rn, arrival, read);  // its first-write time is taken here, just before the write
    if (!stream) {
      st.non_stream++;
      return send_bytes(c, nonstream_all.p, nonstream_all.n);
    }
    st.streams++;
    if (paced_ms > 0) {
      st.events_written++;
      if (!send_bytes(c, first_paced.p, first_paced.n)) return 0;
      if (tokens == 1) return 1;
      if (n_active == cap_active) {
        cap_active = cap_active ? cap_active * 2 : 1024;
        active = realloc(active, cap_active * sizeof *active);
        if (!active) die("realloc");
      }
      active[n_active++] = c;
      c->paced = (int)n_active;
      c->next = 1;
      if (n_active > st.max_active) st.max_active = n_active;
      return 1;
    }
    st.events_written += (uint64_t)tokens;
    return send_bytes(c, stream_all.p, stream_all.n);
  }
  if (PATH_IS("/_records") && get) return send_records(c);
  if (PATH_IS("/_records") && del) {
    char b[64];
    int n = snprintf(b, sizeof b, "{\"cleared\":%zu}", rec_n);
    rec_n = 0;
    return simple(c, "200 OK", b, (size_t)n);
  }
  if (PATH_IS("/_stats") && get) return send_stats(c);
  if (PATH_IS("/_stats") && del) {
    memset(&st, 0, sizeof st);
    return simple(c, "200 OK", "{}", 2);
  }
  if (PATH_IS("/health")) return send_bytes(c, health.p, health.n);
  if (PATH_IS("/version")) return send_bytes(c, version.p, version.n);
  if (PATH_IS("/v1/models")) return send_bytes(c, models.p, models.n);
  return send_bytes(c, notfound.p, notfound.n);
#undef PATH_IS
}

// Parses and answers every complete request in the buffer, except while a
// paced stream runs on this connection (the next request waits for its end).
static int drain(conn *c) {
  size_t at = 0;
  while (!c->paced) {
    const char *b = c->in + at;
    size_t n = c->in_len - at;
    const char *he = memmem(b, n, "\r\n\r\n", 4);
    if (!he) break;
    size_t hn = (size_t)(he - b);
    size_t len = 0;
    const char *cl = find_ci(b, hn, "\r\ncontent-length:");
    if (cl) len = strtoul(cl + 17, NULL, 10);
    if (n < hn + 4 + len) break;
    at += hn + 4 + len;
    if (!handle(c, b, hn, he + 4, len)) return 0;
  }
  if (at > 0) {
    memmove(c->in, c->in + at, c->in_len - at);
    c->in_len -= at;
  }
  return 1;
}

// The kernel's receive time of the bytes a recvmsg returned, moved from
// CLOCK_REALTIME (what SO_TIMESTAMPNS gives) to CLOCK_MONOTONIC; 0 if absent.
static uint64_t received_at(struct msghdr *m) {
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS) continue;
    struct timespec ts, real, mono;
    memcpy(&ts, CMSG_DATA(cm), sizeof ts);
    clock_gettime(CLOCK_REALTIME, &real);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    int64_t ago = ((int64_t)real.tv_sec - ts.tv_sec) * 1000000000ll + (real.tv_nsec - ts.tv_nsec);
    int64_t at = (int64_t)mono.tv_sec * 1000000000ll + mono.tv_nsec - ago;
    return at > 0 ? (uint64_t)at : 0;
  }
  return 0;
}

static void on_readable(conn *c) {
  char buf[65536];
  union {
    char b[CMSG_SPACE(sizeof(struct timespec))];
    struct cmsghdr align;
  } ctl;
  for (;;) {
    struct iovec io = {.iov_base = buf, .iov_len = sizeof buf};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b};
    ssize_t r = recvmsg(c->fd, &m, 0);
    if (r == 0) {
      close_conn(c);
      return;
    }
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) {
        st.socket_errors++;
        close_conn(c);
      }
      return;
    }
    c->arrived = received_at(&m);
    append(&c->in, &c->in_len, &c->in_cap, buf, (size_t)r);
    if (!drain(c)) return;
    if ((size_t)r < sizeof buf) return;
  }
}

static void tick(uint64_t t0, uint64_t *k) {
  (*k)++;
  const uint64_t start = now_ns();
  double lag = ((double)start - (double)t0) / 1e6 - (double)*k * paced_ms;
  st.ticks++;
  st.tick_lag_sum_ms += lag > 0 ? lag : 0;
  if (lag > st.tick_lag_max_ms) st.tick_lag_max_ms = lag;
  for (size_t i = 0; i < n_active;) {
    conn *c = active[i];
    int e = c->next++;
    st.events_written++;
    int done = c->next >= tokens;
    if (done) {
      active[i] = active[--n_active];
      active[i]->paced = (int)i + 1;
      c->paced = 0;
    }
    if (!send_bytes(c, events.p + event_off[e], event_off[e + 1] - event_off[e])) continue;  // closed: already out of the list
    // A finished stream lets the next request on c through; a new paced
    // stream joins the end of the list. active[i] now holds another stream.
    if (done) drain(c);
    else i++;
  }
  const double work = (double)(now_ns() - start) / 1e6;  // the writes of one decode step
  st.tick_work_sum_ms += work;
  if (work > st.tick_work_max_ms) st.tick_work_max_ms = work;
  // Fallen more than a tick behind: skip ahead rather than burst.
  uint64_t behind = (uint64_t)(((double)now_ns() - (double)t0) / 1e6 / paced_ms);
  if (behind > *k + 1) *k = behind;
}

static int arg(int argc, char **argv, const char *name, const char **out) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) {
      *out = argv[i + 1];
      return 1;
    }
  return 0;
}

static void on_term(int sig) {
  (void)sig;
  _exit(0);
}

int main(int argc, char **argv) {
  const char *dir = NULL, *v = NULL;
  int port = 0, exit_on_stdin_end = 0;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--exit-on-stdin-end") == 0) exit_on_stdin_end = 1;
  if (!arg(argc, argv, "--prebuilt", &dir)) {
    fprintf(stderr, "bench-server: --prebuilt DIR is required\n");
    return 2;
  }
  if (arg(argc, argv, "--port", &v)) port = atoi(v);
  if (arg(argc, argv, "--paced-ms", &v)) paced_ms = atof(v);
  if (arg(argc, argv, "--tokens", &v)) tokens = atoi(v);
  if (tokens < 1) {
    fprintf(stderr, "bench-server: bad --tokens\n");
    return 2;
  }
  stream_all = load(dir, "stream_all");
  nonstream_all = load(dir, "nonstream_all");
  first_paced = load(dir, "first_paced");
  events = load(dir, "events");
  health = load(dir, "health");
  version = load(dir, "version");
  models = load(dir, "models");
  notfound = load(dir, "notfound");
  blob idx = load(dir, "events.idx");
  idx.p[idx.n] = 0;
  event_off = calloc((size_t)tokens + 1, sizeof *event_off);
  char *s = idx.p;
  for (int i = 0; i <= tokens; i++) event_off[i] = strtoull(s, &s, 10);
  if (event_off[tokens] != events.n) {
    fprintf(stderr, "bench-server: events.idx does not match events (%zu vs %zu bytes)\n", event_off[tokens], events.n);
    return 2;
  }
  rec_id = malloc(sizeof *rec_id * MAX_RECORDS);
  rec_t = malloc(sizeof *rec_t * 3 * MAX_RECORDS);
  if (!rec_id || !rec_t) die("malloc");

  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  alarm(3600);  // never outlive the parent by more than an hour

  int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (ls < 0) die("socket");
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0) die("bind");
  if (listen(ls, 4096) != 0) die("listen");
  socklen_t al = sizeof a;
  getsockname(ls, (struct sockaddr *)&a, &al);

  epfd = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &ls};
  epoll_ctl(epfd, EPOLL_CTL_ADD, ls, &ev);
  int tfd = -1;
  uint64_t t0 = now_ns(), k = 0;
  if (paced_ms > 0) {
    tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
    struct itimerspec it;
    long ns = (long)(paced_ms * 1e6);
    it.it_interval.tv_sec = ns / 1000000000L;
    it.it_interval.tv_nsec = ns % 1000000000L;
    it.it_value = it.it_interval;
    timerfd_settime(tfd, 0, &it, NULL);
    ev.events = EPOLLIN;
    ev.data.ptr = &tfd;
    epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);
  }
  int in_fd = 0;
  if (exit_on_stdin_end) {
    ev.events = EPOLLIN;
    ev.data.ptr = &in_fd;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, 0, &ev) != 0) exit_on_stdin_end = 0;
  }
  printf("{\"listening\":true,\"port\":%d,\"pid\":%d,\"tokens\":%d,\"pacedMs\":%g,\"engine\":\"c\",\"streamBytes\":%zu,\"nonStreamBytes\":%zu}\n",
         ntohs(a.sin_port), (int)getpid(), tokens, paced_ms, stream_all.n, nonstream_all.n);
  fflush(stdout);

  struct epoll_event evs[256];
  for (;;) {
    int n = epoll_wait(epfd, evs, 256, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("epoll_wait");
    }
    for (int i = 0; i < n; i++) {
      void *p = evs[i].data.ptr;
      if (p == &ls) {
        for (;;) {
          int fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK);
          if (fd < 0) break;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
          conn *c = calloc(1, sizeof *c);
          c->fd = fd;
          st.connections++;
          struct epoll_event ce = {.events = EPOLLIN, .data.ptr = c};
          epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ce);
        }
      } else if (p == &tfd) {
        uint64_t expirations;
        if (read(tfd, &expirations, sizeof expirations) > 0) tick(t0, &k);
      } else if (p == &in_fd) {
        char b[256];
        ssize_t r = read(0, b, sizeof b);
        if (r <= 0) return 0;
      } else {
        conn *c = p;
        if (c->fd < 0) continue;
        if (evs[i].events & EPOLLOUT) {
          if (!flush_out(c)) continue;
        }
        if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
      }
    }
    free_closed();
  }
}
