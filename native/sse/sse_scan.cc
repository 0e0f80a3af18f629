#include "sse_scan.h"

#include <cstring>

namespace lgsse {
namespace {

inline bool IsSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A key (with its quotes) found at k counts only after '{' or ',' and before
// ':', so the same text inside a string value (where its quotes are
// escaped) never matches. Returns where its value starts, or nullptr.
const uint8_t* ValueAfterKey(const uint8_t* from, const uint8_t* end, const uint8_t* k, size_t klen) {
  const uint8_t* p = k - 1;
  while (p >= from && IsSpace(*p)) p--;
  if (p >= from && *p != '{' && *p != ',') return nullptr;
  const uint8_t* q = k + klen;
  while (q < end && IsSpace(*q)) q++;
  if (q >= end || *q != ':') return nullptr;
  q++;
  while (q < end && IsSpace(*q)) q++;
  return q < end ? q : nullptr;
}

// Position of the value of key `key` in [from, end), or nullptr. memmem is
// vectorised in glibc: far cheaper per byte than a byte loop on long input.
const uint8_t* FindValue(const uint8_t* from, const uint8_t* end, const char* key, size_t klen) {
  for (const uint8_t* k = from; end - k >= static_cast<ptrdiff_t>(klen); k++) {
    k = static_cast<const uint8_t*>(memmem(k, static_cast<size_t>(end - k), key, klen));
    if (!k) return nullptr;
    if (const uint8_t* v = ValueAfterKey(from, end, k, klen)) return v;
  }
  return nullptr;
}

// The same searched backwards from `end`: in a stream chunk the fields we
// want (token_ids, finish_reason) sit near its end, a few dozen bytes away,
// where even a vectorised forward search pays its set-up per call.
const uint8_t* FindValueLast(const uint8_t* from, const uint8_t* end, const char* key, size_t klen) {
  if (end - from < static_cast<ptrdiff_t>(klen)) return nullptr;
  for (const uint8_t* k = end - klen; k >= from; k--) {
    if (*k != '"' || k[1] != static_cast<uint8_t>(key[1]) || std::memcmp(k, key, klen) != 0) continue;
    if (const uint8_t* v = ValueAfterKey(from, end, k, klen)) return v;
  }
  return nullptr;
}

// Payloads up to this size are searched from the end.
constexpr ptrdiff_t kSmallPayload = 1024;

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
  // usage is the last field servers write: look in the tail first (a long
  // body's text and ids need not be searched), then everywhere.
  constexpr ptrdiff_t kTail = 512;
  const uint8_t* u = e - a > kTail ? FindValue(e - kTail, e, KEY("\"usage\"")) : nullptr;
  if (!u) u = FindValue(a, e, KEY("\"usage\""));
  if (!u || *u != '{') return;
  const uint8_t* c = FindValue(u, e, KEY("\"completion_tokens\""));
  if (!c) return;
  const int64_t v = ReadInt(c, e);
  if (v >= 0) state[kServerCount] = static_cast<int32_t>(v);
}

enum class Ev { kHandled, kHandBack, kNeedRoom };

// Eight bytes as little-endian (memcpy compiles to one load).
inline uint64_t Load8(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// The numbers of [a, close) (an id array's inside) appended at ids[*len];
// false on anything but digits, commas and spaces, or an empty element.
// `limit` is how far reading may go (the buffer's end): numbers are read
// eight bytes at a time (SWAR: find the first non-digit, then combine the
// digits with three multiplies), which costs a few ns a number where a byte
// loop paid a mispredicted branch at every number's end.
bool ParseIds(const uint8_t* a, const uint8_t* close, const uint8_t* limit, int32_t* ids, size_t* len) {
  size_t n = *len;
  const uint8_t* p = a;
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  for (;;) {
    while (p < close && IsSpace(*p)) p++;
    if (p >= close) break;
    uint32_t x = 0;
    if (limit - p >= 8) {
      const uint64_t w = Load8(p);
      // Non-zero bytes mark non-digits: high nibble not 3, or low nibble > 9
      // (a carry out of a non-digit byte only touches later bytes).
      const uint64_t nd =
          ((w & (0xF0 * kOnes)) ^ (0x30 * kOnes)) | (((w + 0x06 * kOnes) & (0xF0 * kOnes)) ^ (0x30 * kOnes));
      const int k = nd == 0 ? 8 : __builtin_ctzll(nd) / 8;
      if (k == 0 || k == 8) goto slow;                   // not a number here, or 8+ digits: the byte loop decides
      uint64_t v = (w - 0x30 * kOnes) << (8 * (8 - k));  // digits to the top, leading zeros below
      v = ((v * 10) + (v >> 8)) & 0x00FF00FF00FF00FFull;
      v = ((v * 100) + (v >> 16)) & 0x0000FFFF0000FFFFull;
      v = ((v * 10000) + (v >> 32)) & 0x00000000FFFFFFFFull;
      x = static_cast<uint32_t>(v);
      p += k;
    } else {
    slow:
      if (*p < '0' || *p > '9') return false;
      uint64_t y = 0;
      while (p < close && *p >= '0' && *p <= '9') y = y * 10 + (*p++ - '0');
      x = static_cast<uint32_t>(y);
    }
    ids[n++] = static_cast<int32_t>(x);
    while (p < close && IsSpace(*p)) p++;
    if (p >= close) break;
    if (*p != ',') return false;
    p++;
  }
  *len = n;
  return true;
}

// One event payload [a, e).
Ev Payload(const uint8_t* a, const uint8_t* e, const uint8_t* limit, int32_t* state, int32_t* ids, size_t cap) {
  if (e - a == 6 && std::memcmp(a, "[DONE]", 6) == 0) {
    state[kDone] = 1;
    return Ev::kHandled;
  }
  const uint8_t* s = a;
  while (s < e && IsSpace(*s)) s++;
  const uint8_t* t = e;
  while (t > s && IsSpace(t[-1])) t--;
  if (t - s < 2 || *s != '{' || t[-1] != '}') return Ev::kHandBack;
  const bool small = t - s <= kSmallPayload;
  const uint8_t* v = small ? FindValueLast(s, t, KEY("\"token_ids\"")) : FindValue(s, t, KEY("\"token_ids\""));
  if (v && *v == '[') {
    const size_t len0 = static_cast<size_t>(state[kIdsLen]);
    size_t len = len0;
    const uint8_t* close = static_cast<const uint8_t*>(std::memchr(v, ']', static_cast<size_t>(t - v)));
    if (!close) return Ev::kHandBack;
    // n numbers take at least 2n-1 bytes: when even that many fit, the fast
    // parser needs no capacity check.
    const size_t bytes = static_cast<size_t>(close - v - 1);
    if (len0 + (bytes + 1) / 2 <= cap) {
      if (!ParseIds(v + 1, close, limit, ids, &len)) return Ev::kHandBack;
    } else {
      const uint8_t* p = v + 1;
      for (;;) {
        while (p < close && (IsSpace(*p) || *p == ',')) p++;
        if (p >= close) break;
        if (*p < '0' || *p > '9') return Ev::kHandBack;
        int64_t x = 0;
        while (p < close && *p >= '0' && *p <= '9') x = x * 10 + (*p++ - '0');
        if (len == cap) {
          // An event larger than the whole array can never fit: the JS decoders take it.
          return len0 == 0 ? Ev::kHandBack : Ev::kNeedRoom;
        }
        ids[len++] = static_cast<int32_t>(x);
      }
    }
    const size_t n = len - len0;
    state[kIdsLen] = static_cast<int32_t>(len);
    if (n > 0) {
      state[kTokenChunks]++;
      if (n > 1) state[kMultiChunks]++;
    }
    const uint8_t* f =
        small ? FindValueLast(s, v, KEY("\"finish_reason\"")) : FindValue(s, t, KEY("\"finish_reason\""));
    if (small && !f) f = FindValue(v, t, KEY("\"finish_reason\""));  // written after the ids
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
    bool single = true;  // the event is one line (the separator follows its first line end)
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
      single = false;
      p = nl + 1;
    }
    if (!sep) break;
    state[kEvents]++;
    // Fast path: one `data:` line; anything else goes back to JS.
    const uint8_t* a = start;
    const uint8_t* e = sep;
    if (single && e - a >= 5 && std::memcmp(a, "data:", 5) == 0) {
      a += 5;
      if (a < e && *a == ' ') a++;
      const Ev r = Payload(a, e, end, state, ids, cap);
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

void ScanBody(const uint8_t* buf, size_t len, int32_t* state, int32_t* ids, size_t cap) {
  state[kStatus] = kHandBack;
  state[kIdsLen] = 0;
  state[kServerCount] = -1;
  state[kFinished] = 0;
  state[kTokenChunks] = 0;
  state[kMultiChunks] = 0;
  const uint8_t* end = buf + len;
  // For single-prompt requests only (the caller's job): with several choices
  // the last token_ids would win.
  const uint8_t* c = FindValue(buf, end, KEY("\"choices\""));
  if (!c || *c != '[') return;
  if (Payload(buf, end, end, state, ids, cap) != Ev::kHandled || state[kTokenChunks] == 0) {
    state[kIdsLen] = 0;
    return;
  }
  if (state[kServerCount] < 0) ReadUsage(buf, end, state);
  state[kStatus] = kOk;
}

}  // namespace lgsse
