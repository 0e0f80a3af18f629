// HTTP/1.1 chunked transfer decoding for the adapters' body reads: strips
// the chunk framing of one socket read in place, so the payload of every
// chunk in it reaches the SSE scanner in one piece, without undici's parser
// (one JS callback and one buffer view per chunk). It stops at the last
// chunk (size 0) and reports where it was, so the caller hands that line,
// the trailers and the final CRLF to undici, which then ends the response
// as usual. Pure C++: no Node, no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lgsse {

// Per-response state, shared with JS as an Int32Array.
enum DechunkSlot : int {
  kChPhase = 0,  // in/out: DechunkPhase
  kChValue,      // in/out: size digits so far (size line), or data bytes left (data)
  kChDigits,     // in/out: hex digits in the size line so far
  kChOutStart,   // out: where the payload of this read starts
  kChOutLen,     // out: payload bytes, contiguous from kChOutStart
  kChLastStart,  // out: start of the last chunk's size line when it is all in this read, else -1
  kChLastEnd,    // out: offset after the last chunk's size line (its LF), -1 when not reached
  kChError,      // out: DechunkError
  kChSlotCount
};

enum DechunkPhase : int {
  kChSizeStart = 0,  // at the start of a size line (the state right after the header block)
  kChSizeDigits,     // in the hex digits
  kChSizeExt,        // after the digits: whitespace or `;extension`, up to CR
  kChSizeLf,         // CR of the size line seen
  kChData,           // in a chunk's data, kChValue bytes left
  kChDataCr,         // data done: CR expected
  kChDataLf,         // LF expected
};

enum DechunkError : int {
  kChOk = 0,
  kChBadSize,   // not a hex digit where one must be, or a bare LF
  kChBadCrlf,   // a chunk's data not followed by CRLF
  kChTooLarge,  // a chunk over 2^31 - 1 bytes
};

// Decodes buf[0, len), moving payload bytes down in place over the framing.
void Dechunk(uint8_t* buf, size_t len, int32_t* state);

}  // namespace lgsse
