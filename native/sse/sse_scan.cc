#include "sse_scan.h"

#include <cstring>

namespace lgsse {
namespace {

inline bool IsSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Position of the value of key `key` (with its quotes) searched backwards in
// [from, end), or nullptr. The key must follow '{' or ',' and precede ':'.
const uint8_t* FindValueLast(const uint8_t* from, const uint8_t* end, const char* key, size_t klen) {
  if (end - from < static_cast<ptrdiff_t>(klen)) return nullptr;
  for (const uint8_t* k = end - klen; k >= from; k--) {
    if (*k != '"' || std::memcmp(k, key, klen) != 0) continue;
    const uint8_t* p = k - 1;
    while (p >= from && IsSpace(*p)) p--;
    if (p >= from && *p != '{' && *p != ',') continue;
    const uint8_t* q = k + klen;
    while (q < end && IsSpace(*q)) q++;
    if (q >= end || *q != ':') continue;
    q++;
    while (q < end && IsSpace(*q)) q++;
    return q < end ? q : nullptr;
  }
  return nullptr;
}

const uint8_t* FindValue(const uint8_t* from, const uint8_t* end, const char* key, size_t klen) {
  for (const uint8_t* k = from; k + klen <= end; k++) {
    k = static_cast<const uint8_t*>(std::memchr(k, '"', end - k));
    if (!k || k + klen > end) return nullptr;
    if (std::memcmp(k, key, klen) != 0) continue;
    const uint8_t* p = k - 1;
    while (p >= from && IsSpace(*p)) p--;
    if (p >= from && *p != '{' && *p != ',') continue;
    const uint8_t* q = k + klen;
    while (q < end && IsSpace(*q)) q++;
    if (q >= end || *q != ':') continue;
    q++;
    while (q < end && IsSpace(*q)) q++;
    return q < end ? q : nullptr;
  }
  return nullptr;
}

#define KEY(s) s, sizeof(s) - 1

int64_t ReadInt(const uint8_t* p, const uint8_t* end) {
  int64_t v = 0;
  int digits = 0;
  while (p < end && *p >= '0' && *p <= '9') {
    v = v * 10 + (*p - '0');
    digits++;
    p++;
  }
  return digits ? v : -1;
}

void ReadUsage(const uint8_t* a, const uint8_t* e, int32_t* state) {
  const uint8_t* u = FindValueLast(a, e, KEY("\"usage\""));
  if (!u || *u != '{') return;
  const uint8_t* c = FindValue(u, e, KEY("\"completion_tokens\""));
  if (!c) return;
  const int64_t v = ReadInt(c, e);
  if (v >= 0) state[kServerCount] = static_cast<int32_t>(v);
}

enum class Ev { kHandled, kHandBack, kNeedRoom };

// One event payload [a, e).
Ev Payload(const uint8_t* a, const uint8_t* e, int32_t* state, int32_t* ids, size_t cap) {
  if (e - a == 6 && std::memcmp(a, "[DONE]", 6) == 0) {
    state[kDone] = 1;
    return Ev::kHandled;
  }
  const uint8_t* s = a;
  while (s < e && IsSpace(*s)) s++;
  const uint8_t* t = e;
  while (t > s && IsSpace(t[-1])) t--;
  if (t - s < 2 || *s != '{' || t[-1] != '}') return Ev::kHandBack;
  const uint8_t* v = FindValueLast(s, t, KEY("\"token_ids\""));
  if (v && *v == '[') {
    // Count first, so a full ids array leaves the event untouched.
    size_t n = 0;
    const uint8_t* p = v + 1;
    for (;;) {
      while (p < t && (IsSpace(*p) || *p == ',')) p++;
      if (p >= t) return Ev::kHandBack;
      if (*p == ']') break;
      if (*p < '0' || *p > '9') return Ev::kHandBack;
      while (p < t && *p >= '0' && *p <= '9') p++;
      n++;
    }
    // An event larger than the whole array can never fit: the JS decoders take it.
    if (n > cap) return Ev::kHandBack;
    size_t len = static_cast<size_t>(state[kIdsLen]);
    if (len + n > cap) return Ev::kNeedRoom;
    p = v + 1;
    for (size_t i = 0; i < n; i++) {
      while (IsSpace(*p) || *p == ',') p++;
      int64_t x = 0;
      while (*p >= '0' && *p <= '9') x = x * 10 + (*p++ - '0');
      ids[len++] = static_cast<int32_t>(x);
    }
    state[kIdsLen] = static_cast<int32_t>(len);
    if (n > 0) {
      state[kTokenChunks]++;
      if (n > 1) state[kMultiChunks]++;
    }
    const uint8_t* f = FindValueLast(s, v, KEY("\"finish_reason\""));
    if (f && *f == '"') {
      state[kFinished] = 1;
      ReadUsage(s, t, state);  // some servers put it on the last content chunk
    }
    return Ev::kHandled;
  }
  // The final usage-only chunk: "choices":[] with usage.
  const uint8_t* c = FindValue(s, t, KEY("\"choices\""));
  if (c && *c == '[') {
    const uint8_t* q = c + 1;
    while (q < t && IsSpace(*q)) q++;
    if (q < t && *q == ']') {
      ReadUsage(s, t, state);
      return Ev::kHandled;
    }
  }
  return Ev::kHandBack;  // role chunk, error event, other shapes: the JS decoders
}

}  // namespace

void Scan(const uint8_t* buf, size_t len, int32_t* state, int32_t* ids, size_t cap) {
  state[kStatus] = kOk;
  state[kConsumed] = 0;
  state[kTokenChunks] = 0;
  state[kMultiChunks] = 0;
  state[kEvents] = 0;
  const uint8_t* end = buf + len;
  if (state[kCrlf] == 0) {
    const uint8_t* lf = static_cast<const uint8_t*>(std::memchr(buf, '\n', len));
    if (lf) state[kCrlf] = (lf > buf && lf[-1] == '\r') ? 2 : 1;
  }
  const bool crlf = state[kCrlf] == 2;
  const size_t seplen = crlf ? 4 : 2;
  const uint8_t* start = buf;
  while (start < end && !state[kDone]) {
    // Find the blank line ending this event.
    const uint8_t* sep = nullptr;
    for (const uint8_t* p = start; p < end;) {
      const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(p, '\n', end - p));
      if (!nl) break;
      if (!crlf) {
        if (nl + 1 < end && nl[1] == '\n') {
          sep = nl;
          break;
        }
      } else if (nl >= start + 1 && nl[-1] == '\r' && nl + 2 < end && nl[1] == '\r' && nl[2] == '\n') {
        sep = nl - 1;
        break;
      }
      p = nl + 1;
    }
    if (!sep) break;
    state[kEvents]++;
    // Fast path: one `data:` line; anything else goes back to JS.
    const uint8_t* a = start;
    const uint8_t* e = sep;
    const bool single = std::memchr(a, '\n', e - a) == nullptr;
    if (single && e - a >= 5 && std::memcmp(a, "data:", 5) == 0) {
      a += 5;
      if (a < e && *a == ' ') a++;
      const Ev r = Payload(a, e, state, ids, cap);
      if (r == Ev::kNeedRoom) {
        state[kStatus] = kNeedRoom;
        state[kEvents]--;
        break;
      }
      if (r == Ev::kHandBack) {
        state[kStatus] = kHandBack;
        state[kEventStart] = static_cast<int32_t>(start - buf);
        state[kEventEnd] = static_cast<int32_t>(e - buf);
        start = sep + seplen;
        break;
      }
    } else if (!(e > a && *a == ':')) {  // comments are skipped; other events go back
      state[kStatus] = kHandBack;
      state[kEventStart] = static_cast<int32_t>(start - buf);
      state[kEventEnd] = static_cast<int32_t>(e - buf);
      start = sep + seplen;
      break;
    }
    start = sep + seplen;
  }
  state[kConsumed] = static_cast<int32_t>(start - buf);
}

}  // namespace lgsse
