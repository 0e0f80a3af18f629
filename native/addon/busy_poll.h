// Busy polling for a thread that runs the adapter's HTTP work. While the
// thread has requests in flight, and for a set time after its last one
// ended, its event loop polls (epoll with a zero timeout) instead of
// sleeping. On a VM a sleeping vCPU is halted and handed back to the host;
// at tens to hundreds of requests a second, waking it and running the
// request path with caches other work has cooled makes issue -> written far
// slower than at thousands a second, and that time lands in the measured
// TTFT. The price is a busy core per polling thread while it polls.
#pragma once

#include <napi.h>

namespace lgaddon {

// Adds to the exports, all acting on the calling thread's event loop:
//   busyPollEnable(idleMs)  polling allowed on this thread (counted: one
//                           call per user; the last idleMs given wins)
//   busyPollDisable()       one user fewer; the last one closes the handle
//   busyPollHold(delta)     +1 when the thread's first request starts, -1
//                           when its last one ends (starts the idle window)
//   busyPollStats()         { enabled, polling, holds, spins }
void RegisterBusyPoll(Napi::Env env, Napi::Object exports);

}  // namespace lgaddon
