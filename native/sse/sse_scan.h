// Scanning of OpenAI-style SSE streams (vLLM / SGLang /v1/completions and
// chat with return_token_ids) for the adapters' hot path: event boundaries,
// generated token ids, finish, usage count, [DONE]. Pure C++: no Node, no
// allocation. Anything it does not recognise is handed back to the caller
// (the TypeScript decoders) by position.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lgsse {

// Per-stream state, shared with JS as an Int32Array.
enum Slot : int {
  kIdsLen = 0,   // in/out: ids stored so far
  kServerCount,  // in/out: usage.completion_tokens, -1 unknown
  kFinished,     // in/out: a finish_reason was seen
  kDone,         // out: [DONE] seen (scanning stopped there)
  kStatus,       // out: Status below
  kConsumed,     // out: bytes consumed (events fully handled)
  kEventStart,   // out: bounds of the whole event (its lines) that stopped the scan
  kEventEnd,
  kTokenChunks,  // out: events that carried ids, this call
  kMultiChunks,  // out: of those, events with more than one id
  kEvents,       // out: events seen, this call
  kCrlf,         // in/out: 0 unknown, 1 LF, 2 CRLF line ends
  kSlotCount
};

enum Status : int {
  kOk = 0,        // everything up to kConsumed handled; the rest is a partial event
  kNeedRoom = 1,  // the ids array is full: grow it and call again from kConsumed
  kHandBack = 2,  // an event the scanner does not decode (role chunk, error, other shape): its lines are
                  // [kEventStart, kEventEnd), already counted in kConsumed
};

// Scans buf[0, len). `ids`/`cap`: where generated ids go (from state[kIdsLen]).
void Scan(const uint8_t* buf, size_t len, int32_t* state, int32_t* ids, size_t cap);

// A whole non-streaming OpenAI-style body with one choice: its token_ids and
// usage.completion_tokens. kOk when the ids were found (kIdsLen, kServerCount
// set); kHandBack when the body is anything else (error, no ids, too many
// ids): the caller then parses it as JSON.
void ScanBody(const uint8_t* buf, size_t len, int32_t* state, int32_t* ids, size_t cap);

}  // namespace lgsse
