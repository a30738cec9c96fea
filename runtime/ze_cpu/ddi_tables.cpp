// The function tables the Level Zero loader asks a driver for: every getter that ze_ddi.h,
// zet_ddi.h and zes_ddi.h declare (loader 1.8.12 unloads a driver that lacks one of them),
// each filling its table with the entry points this driver implements and null elsewhere
// (which the loader answers with ZE_RESULT_ERROR_UNSUPPORTED_FEATURE). Tools (zet) and
// sysman (zes) are not implemented: their tables are empty.
#include "api.hpp"

#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

namespace {

// The tables are those of spec 1.4: a caller of another major version, or of an older minor
// one (whose tables are shorter), is refused.
template <class Table>
ze_result_t emptyTable(ze_api_version_t version, Table *table) {
  if (!table) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_1_4) ||
      ZE_MINOR_VERSION(version) < ZE_MINOR_VERSION(ZE_API_VERSION_1_4))
    return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  *table = {};
  return ZE_RESULT_SUCCESS;
}

}  // namespace

// Qualified: ze_api.h declares the same names globally, for the loader's own entry points.
namespace api = xpurt::ze_cpu::api;

extern "C" {

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(ze_api_version_t version,
                                                             ze_global_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnInit = api::zeInit;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDriverProcAddrTable(ze_api_version_t version,
                                                             ze_driver_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnGet = api::zeDriverGet;
  table->pfnGetApiVersion = api::zeDriverGetApiVersion;
  table->pfnGetProperties = api::zeDriverGetProperties;
  table->pfnGetIpcProperties = api::zeDriverGetIpcProperties;
  table->pfnGetExtensionProperties = api::zeDriverGetExtensionProperties;
  table->pfnGetExtensionFunctionAddress = api::zeDriverGetExtensionFunctionAddress;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(ze_api_version_t version,
                                                             ze_device_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnGet = api::zeDeviceGet;
  table->pfnGetSubDevices = api::zeDeviceGetSubDevices;
  table->pfnGetProperties = api::zeDeviceGetProperties;
  table->pfnGetComputeProperties = api::zeDeviceGetComputeProperties;
  table->pfnGetModuleProperties = api::zeDeviceGetModuleProperties;
  table->pfnGetCommandQueueGroupProperties = api::zeDeviceGetCommandQueueGroupProperties;
  table->pfnGetMemoryProperties = api::zeDeviceGetMemoryProperties;
  table->pfnGetMemoryAccessProperties = api::zeDeviceGetMemoryAccessProperties;
  table->pfnGetCacheProperties = api::zeDeviceGetCacheProperties;
  table->pfnGetImageProperties = api::zeDeviceGetImageProperties;
  table->pfnGetExternalMemoryProperties = api::zeDeviceGetExternalMemoryProperties;
  table->pfnGetP2PProperties = api::zeDeviceGetP2PProperties;
  table->pfnCanAccessPeer = api::zeDeviceCanAccessPeer;
  table->pfnGetStatus = api::zeDeviceGetStatus;
  table->pfnGetGlobalTimestamps = api::zeDeviceGetGlobalTimestamps;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDeviceExpProcAddrTable(ze_api_version_t version,
                                                                ze_device_exp_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t version,
                                                              ze_context_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeContextCreate;
  table->pfnDestroy = api::zeContextDestroy;
  table->pfnGetStatus = api::zeContextGetStatus;
  table->pfnSystemBarrier = api::zeContextSystemBarrier;
  table->pfnMakeMemoryResident = api::zeContextMakeMemoryResident;
  table->pfnEvictMemory = api::zeContextEvictMemory;
  table->pfnCreateEx = api::zeContextCreateEx;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetCommandQueueProcAddrTable(ze_api_version_t version, ze_command_queue_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeCommandQueueCreate;
  table->pfnDestroy = api::zeCommandQueueDestroy;
  table->pfnExecuteCommandLists = api::zeCommandQueueExecuteCommandLists;
  table->pfnSynchronize = api::zeCommandQueueSynchronize;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetCommandListProcAddrTable(ze_api_version_t version, ze_command_list_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeCommandListCreate;
  table->pfnCreateImmediate = api::zeCommandListCreateImmediate;
  table->pfnDestroy = api::zeCommandListDestroy;
  table->pfnClose = api::zeCommandListClose;
  table->pfnReset = api::zeCommandListReset;
  table->pfnAppendWriteGlobalTimestamp = api::zeCommandListAppendWriteGlobalTimestamp;
  table->pfnAppendBarrier = api::zeCommandListAppendBarrier;
  table->pfnAppendMemoryRangesBarrier = api::zeCommandListAppendMemoryRangesBarrier;
  table->pfnAppendMemoryCopy = api::zeCommandListAppendMemoryCopy;
  table->pfnAppendMemoryFill = api::zeCommandListAppendMemoryFill;
  table->pfnAppendMemoryCopyRegion = api::zeCommandListAppendMemoryCopyRegion;
  table->pfnAppendMemoryCopyFromContext = api::zeCommandListAppendMemoryCopyFromContext;
  table->pfnAppendMemoryPrefetch = api::zeCommandListAppendMemoryPrefetch;
  table->pfnAppendMemAdvise = api::zeCommandListAppendMemAdvise;
  table->pfnAppendSignalEvent = api::zeCommandListAppendSignalEvent;
  table->pfnAppendWaitOnEvents = api::zeCommandListAppendWaitOnEvents;
  table->pfnAppendEventReset = api::zeCommandListAppendEventReset;
  table->pfnAppendQueryKernelTimestamps = api::zeCommandListAppendQueryKernelTimestamps;
  table->pfnAppendLaunchKernel = api::zeCommandListAppendLaunchKernel;
  table->pfnAppendLaunchKernelIndirect = api::zeCommandListAppendLaunchKernelIndirect;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetImageProcAddrTable(ze_api_version_t version,
                                                            ze_image_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetImageExpProcAddrTable(ze_api_version_t version,
                                                               ze_image_exp_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetFenceProcAddrTable(ze_api_version_t version,
                                                            ze_fence_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeFenceCreate;
  table->pfnDestroy = api::zeFenceDestroy;
  table->pfnHostSynchronize = api::zeFenceHostSynchronize;
  table->pfnQueryStatus = api::zeFenceQueryStatus;
  table->pfnReset = api::zeFenceReset;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventPoolProcAddrTable(ze_api_version_t version,
                                                                ze_event_pool_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeEventPoolCreate;
  table->pfnDestroy = api::zeEventPoolDestroy;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventProcAddrTable(ze_api_version_t version,
                                                            ze_event_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeEventCreate;
  table->pfnDestroy = api::zeEventDestroy;
  table->pfnHostSignal = api::zeEventHostSignal;
  table->pfnHostSynchronize = api::zeEventHostSynchronize;
  table->pfnQueryStatus = api::zeEventQueryStatus;
  table->pfnHostReset = api::zeEventHostReset;
  table->pfnQueryKernelTimestamp = api::zeEventQueryKernelTimestamp;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventExpProcAddrTable(ze_api_version_t version,
                                                               ze_event_exp_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t version,
                                                             ze_module_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeModuleCreate;
  table->pfnDestroy = api::zeModuleDestroy;
  table->pfnDynamicLink = api::zeModuleDynamicLink;
  table->pfnGetNativeBinary = api::zeModuleGetNativeBinary;
  table->pfnGetKernelNames = api::zeModuleGetKernelNames;
  table->pfnGetProperties = api::zeModuleGetProperties;
  table->pfnGetFunctionPointer = api::zeModuleGetFunctionPointer;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetModuleBuildLogProcAddrTable(ze_api_version_t version, ze_module_build_log_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnDestroy = api::zeModuleBuildLogDestroy;
  table->pfnGetString = api::zeModuleBuildLogGetString;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetKernelProcAddrTable(ze_api_version_t version,
                                                             ze_kernel_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnCreate = api::zeKernelCreate;
  table->pfnDestroy = api::zeKernelDestroy;
  table->pfnSetCacheConfig = api::zeKernelSetCacheConfig;
  table->pfnSetGroupSize = api::zeKernelSetGroupSize;
  table->pfnSuggestGroupSize = api::zeKernelSuggestGroupSize;
  table->pfnSetArgumentValue = api::zeKernelSetArgumentValue;
  table->pfnSetIndirectAccess = api::zeKernelSetIndirectAccess;
  table->pfnGetIndirectAccess = api::zeKernelGetIndirectAccess;
  table->pfnGetSourceAttributes = api::zeKernelGetSourceAttributes;
  table->pfnGetProperties = api::zeKernelGetProperties;
  table->pfnGetName = api::zeKernelGetName;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetKernelExpProcAddrTable(ze_api_version_t version,
                                                                ze_kernel_exp_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnSetGlobalOffsetExp = api::zeKernelSetGlobalOffsetExp;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetSamplerProcAddrTable(ze_api_version_t version,
                                                              ze_sampler_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetPhysicalMemProcAddrTable(ze_api_version_t version, ze_physical_mem_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t version,
                                                          ze_mem_dditable_t *table) {
  if (ze_result_t result = emptyTable(version, table); result != ZE_RESULT_SUCCESS) return result;
  table->pfnAllocShared = api::zeMemAllocShared;
  table->pfnAllocDevice = api::zeMemAllocDevice;
  table->pfnAllocHost = api::zeMemAllocHost;
  table->pfnFree = api::zeMemFree;
  table->pfnGetAllocProperties = api::zeMemGetAllocProperties;
  table->pfnGetAddressRange = api::zeMemGetAddressRange;
  table->pfnFreeExt = api::zeMemFreeExt;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetVirtualMemProcAddrTable(ze_api_version_t version,
                                                                 ze_virtual_mem_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetFabricVertexExpProcAddrTable(
    ze_api_version_t version, ze_fabric_vertex_exp_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetFabricEdgeExpProcAddrTable(ze_api_version_t version, ze_fabric_edge_exp_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetDeviceProcAddrTable(ze_api_version_t version,
                                                              zet_device_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetContextProcAddrTable(ze_api_version_t version,
                                                               zet_context_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zetGetCommandListProcAddrTable(ze_api_version_t version, zet_command_list_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetModuleProcAddrTable(ze_api_version_t version,
                                                              zet_module_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetKernelProcAddrTable(ze_api_version_t version,
                                                              zet_kernel_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zetGetMetricGroupProcAddrTable(ze_api_version_t version, zet_metric_group_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricGroupExpProcAddrTable(
    ze_api_version_t version, zet_metric_group_exp_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricProcAddrTable(ze_api_version_t version,
                                                              zet_metric_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zetGetMetricStreamerProcAddrTable(ze_api_version_t version, zet_metric_streamer_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricQueryPoolProcAddrTable(
    ze_api_version_t version, zet_metric_query_pool_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zetGetMetricQueryProcAddrTable(ze_api_version_t version, zet_metric_query_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetTracerExpProcAddrTable(ze_api_version_t version,
                                                                 zet_tracer_exp_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetDebugProcAddrTable(ze_api_version_t version,
                                                             zet_debug_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetDriverProcAddrTable(ze_api_version_t version,
                                                              zes_driver_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetDeviceProcAddrTable(ze_api_version_t version,
                                                              zes_device_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetSchedulerProcAddrTable(ze_api_version_t version,
                                                                 zes_scheduler_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetPerformanceFactorProcAddrTable(
    ze_api_version_t version, zes_performance_factor_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetPowerProcAddrTable(ze_api_version_t version,
                                                             zes_power_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetFrequencyProcAddrTable(ze_api_version_t version,
                                                                 zes_frequency_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetEngineProcAddrTable(ze_api_version_t version,
                                                              zes_engine_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetStandbyProcAddrTable(ze_api_version_t version,
                                                               zes_standby_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetFirmwareProcAddrTable(ze_api_version_t version,
                                                                zes_firmware_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetMemoryProcAddrTable(ze_api_version_t version,
                                                              zes_memory_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zesGetFabricPortProcAddrTable(ze_api_version_t version, zes_fabric_port_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zesGetTemperatureProcAddrTable(ze_api_version_t version, zes_temperature_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetPsuProcAddrTable(ze_api_version_t version,
                                                           zes_psu_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetFanProcAddrTable(ze_api_version_t version,
                                                           zes_fan_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetLedProcAddrTable(ze_api_version_t version,
                                                           zes_led_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetRasProcAddrTable(ze_api_version_t version,
                                                           zes_ras_dditable_t *table) {
  return emptyTable(version, table);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zesGetDiagnosticsProcAddrTable(ze_api_version_t version, zes_diagnostics_dditable_t *table) {
  return emptyTable(version, table);
}

}  // extern "C"
