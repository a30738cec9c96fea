// ISPC's task system on oneTBB (ispc_task_system.cpp), and the application's in its place.
#pragma once

#include <xpurt/xpurt.h>

namespace xpurt::cpu {

// From now on ISPCLaunch, ISPCAlloc and ISPCSync call the application's functions (all three
// given), or xpurt's own again (all three NULL). The caller checks the arguments.
void setIspcTaskingCallbacks(XpurtIspcLaunchFunc launch, XpurtIspcAllocFunc alloc,
                             XpurtIspcSyncFunc sync);

}  // namespace xpurt::cpu
