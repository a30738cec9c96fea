// Host callbacks run on a host thread on every device; the message a failing one gives
// (xpurtHostCallbackSetError) is kept per thread until the callback returns.
#pragma once

#include <xpurt/xpurt.h>

#include <string>

namespace xpurt::core {

void setHostCallbackError(const char *message);
// For the runtime's own callbacks: the whole message their failure gives, in place of "host
// callback failed (...)".
void setRuntimeCallbackFailure(std::string message);

// Runs the callback; returns why it failed ("host callback failed (...): message"), or an
// empty string when it succeeded.
std::string runHostCallback(XpurtHostFunc func, void *userData);

}  // namespace xpurt::core
