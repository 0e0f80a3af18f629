#include "dechunk.h"

#include <cstring>

namespace lgsse {

namespace {

inline int HexValue(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  const uint8_t l = c | 0x20;
  if (l >= 'a' && l <= 'f') return l - 'a' + 10;
  return -1;
}

}  // namespace

void Dechunk(uint8_t* buf, size_t len, int32_t* state) {
  int32_t phase = state[kChPhase];
  int64_t value = state[kChValue];
  int32_t digits = state[kChDigits];
  int64_t out_start = -1;
  int64_t out_end = 0;
  int64_t line_start = phase == kChSizeStart ? 0 : -1;
  state[kChLastStart] = -1;
  state[kChLastEnd] = -1;
  state[kChError] = kChOk;
  size_t p = 0;
  while (p < len) {
    if (phase == kChData) {
      const size_t take = static_cast<size_t>(value) < len - p ? static_cast<size_t>(value) : len - p;
      if (out_start < 0) {
        out_start = static_cast<int64_t>(p);  // the first payload stays where it is
        out_end = out_start;
      } else {
        std::memmove(buf + out_end, buf + p, take);  // later ones move down over the framing
      }
      out_end += static_cast<int64_t>(take);
      value -= static_cast<int64_t>(take);
      p += take;
      if (value == 0) phase = kChDataCr;
      continue;
    }
    const uint8_t c = buf[p];
    switch (phase) {
      case kChDataCr:
        if (c != '\r') {
          state[kChError] = kChBadCrlf;
          goto out;
        }
        phase = kChDataLf;
        break;
      case kChDataLf:
        if (c != '\n') {
          state[kChError] = kChBadCrlf;
          goto out;
        }
        phase = kChSizeStart;
        line_start = static_cast<int64_t>(p) + 1;
        break;
      case kChSizeStart: {
        const int v = HexValue(c);
        if (v < 0) {
          state[kChError] = kChBadSize;
          goto out;
        }
        value = v;
        digits = 1;
        phase = kChSizeDigits;
        break;
      }
      case kChSizeDigits: {
        const int v = HexValue(c);
        if (v >= 0) {
          value = value * 16 + v;
          if (++digits > 8 || value > 0x7fffffff) {
            state[kChError] = kChTooLarge;
            goto out;
          }
        } else if (c == '\r') {
          phase = kChSizeLf;
        } else if (c == ';' || c == ' ' || c == '\t') {
          phase = kChSizeExt;
        } else {
          state[kChError] = kChBadSize;
          goto out;
        }
        break;
      }
      case kChSizeExt:
        if (c == '\r') {
          phase = kChSizeLf;
        } else if (c == '\n') {
          state[kChError] = kChBadSize;
          goto out;
        }
        break;
      case kChSizeLf:
        if (c != '\n') {
          state[kChError] = kChBadSize;
          goto out;
        }
        if (value == 0) {
          // The last chunk: the rest (trailers, CRLF) is undici's.
          state[kChLastStart] = static_cast<int32_t>(line_start);
          state[kChLastEnd] = static_cast<int32_t>(p + 1);
          phase = kChSizeStart;
          goto out;
        }
        phase = kChData;
        break;
      default: state[kChError] = kChBadSize; goto out;
    }
    p++;
  }
out:
  state[kChPhase] = phase;
  state[kChValue] = static_cast<int32_t>(value);
  state[kChDigits] = digits;
  state[kChOutStart] = out_start < 0 ? 0 : static_cast<int32_t>(out_start);
  state[kChOutLen] = out_start < 0 ? 0 : static_cast<int32_t>(out_end - out_start);
}

}  // namespace lgsse
