#include "ze_cpu_fixture.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace xpurt::ze_cpu::test {

const Inspect &Inspect::get() {
  static const Inspect inspect = [] {
    const char *path = std::getenv("ZE_ENABLE_ALT_DRIVERS");
    // RTLD_NOLOAD: the very library the loader loaded, or nothing.
    void *library = path ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
    if (!library) {
      ADD_FAILURE() << "the driver named by ZE_ENABLE_ALT_DRIVERS is not loaded";
      std::abort();
    }
    auto find = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
      if (!fn) {
        ADD_FAILURE() << name << " is not exported by the driver";
        std::abort();
      }
    };
    Inspect i{};
    find(i.recordStart, "xpurtZeCpuRecordStart");
    find(i.recordStop, "xpurtZeCpuRecordStop");
    find(i.recordClear, "xpurtZeCpuRecordClear");
    find(i.recordCount, "xpurtZeCpuRecordCount");
    find(i.recordGet, "xpurtZeCpuRecordGet");
    find(i.callCount, "xpurtZeCpuCallCount");
    find(i.setFaults, "xpurtZeCpuSetFaults");
    return i;
  }();
  return inspect;
}

std::vector<XpurtZeCpuRecord> Inspect::records() const {
  std::vector<XpurtZeCpuRecord> all(recordCount());
  for (uint64_t i = 0; i < all.size(); ++i) EXPECT_EQ(recordGet(i, &all[i]), 0);
  return all;
}

std::vector<uint8_t> readBesideProgram(const std::string &name) {
  std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe");
  std::ifstream file(program.parent_path() / name, std::ios::binary);
  EXPECT_TRUE(file) << "cannot open " << (program.parent_path() / name);
  return {std::istreambuf_iterator<char>(file), {}};
}

// Why the loader could not load the driver, if it could not.
std::string whyNotLoaded() {
  const char *path = std::getenv("ZE_ENABLE_ALT_DRIVERS");
  if (!path) return "ZE_ENABLE_ALT_DRIVERS is not set";
  void *library = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (!library) return dlerror();
  dlclose(library);
  return std::string(path) + " loads";
}

void ZeCpuTest::SetUpTestSuite() {
  ze_result_t init = zeInit(0);
  ASSERT_EQ(init, ZE_RESULT_SUCCESS) << whyNotLoaded();
  uint32_t count = 1;
  ASSERT_EQ(zeDriverGet(&count, &driver), ZE_RESULT_SUCCESS);
  count = 1;
  ASSERT_EQ(zeDeviceGet(driver, &count, &device), ZE_RESULT_SUCCESS);
}

void ZeCpuTest::SetUp() {
  ASSERT_NE(device, nullptr);
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ZE_OK(zeContextCreate(driver, &desc, &context));
}

void ZeCpuTest::TearDown() {
  Inspect::get().setFaults("");
  Inspect::get().recordStop();
  Inspect::get().recordClear();
  for (auto it = cleanups_.rbegin(); it != cleanups_.rend(); ++it) (*it)();
  cleanups_.clear();
  if (context) {
    EXPECT_ZE_OK(zeContextDestroy(context));
  }
}

void *ZeCpuTest::remember(void *ptr) {
  if (ptr) later([this, ptr] { EXPECT_ZE_OK(zeMemFree(context, ptr)); });
  return ptr;
}

void *ZeCpuTest::allocShared(size_t size, size_t alignment) {
  ze_device_mem_alloc_desc_t deviceDesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  ze_host_mem_alloc_desc_t hostDesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void *p = nullptr;
  EXPECT_ZE_OK(zeMemAllocShared(context, &deviceDesc, &hostDesc, size, alignment, device, &p));
  return remember(p);
}

void *ZeCpuTest::allocDevice(size_t size, size_t alignment) {
  ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void *p = nullptr;
  EXPECT_ZE_OK(zeMemAllocDevice(context, &desc, size, alignment, device, &p));
  return remember(p);
}

void *ZeCpuTest::allocHost(size_t size, size_t alignment) {
  ze_host_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void *p = nullptr;
  EXPECT_ZE_OK(zeMemAllocHost(context, &desc, size, alignment, &p));
  return remember(p);
}

ze_command_list_handle_t ZeCpuTest::immediateList(uint32_t ordinal, uint32_t index,
                                                  ze_command_queue_mode_t mode) {
  ze_command_queue_desc_t desc{
      ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, ordinal, index, 0, mode,
      ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_list_handle_t list = nullptr;
  EXPECT_ZE_OK(zeCommandListCreateImmediate(context, device, &desc, &list));
  if (list) later([list] { EXPECT_ZE_OK(zeCommandListDestroy(list)); });
  return list;
}

ze_command_list_handle_t ZeCpuTest::regularList(uint32_t ordinal) {
  ze_command_list_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, ordinal, 0};
  ze_command_list_handle_t list = nullptr;
  EXPECT_ZE_OK(zeCommandListCreate(context, device, &desc, &list));
  if (list) later([list] { EXPECT_ZE_OK(zeCommandListDestroy(list)); });
  return list;
}

ze_command_queue_handle_t ZeCpuTest::queue(uint32_t ordinal, uint32_t index,
                                           ze_command_queue_mode_t mode) {
  ze_command_queue_desc_t desc{
      ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, ordinal, index, 0, mode,
      ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_queue_handle_t q = nullptr;
  EXPECT_ZE_OK(zeCommandQueueCreate(context, device, &desc, &q));
  if (q) later([q] { EXPECT_ZE_OK(zeCommandQueueDestroy(q)); });
  return q;
}

ze_fence_handle_t ZeCpuTest::fence(ze_command_queue_handle_t q, bool signalled) {
  ze_fence_desc_t desc{ZE_STRUCTURE_TYPE_FENCE_DESC, nullptr,
                       signalled ? ze_fence_flags_t{ZE_FENCE_FLAG_SIGNALED} : 0};
  ze_fence_handle_t f = nullptr;
  EXPECT_ZE_OK(zeFenceCreate(q, &desc, &f));
  if (f) later([f] { EXPECT_ZE_OK(zeFenceDestroy(f)); });
  return f;
}

ze_event_pool_handle_t ZeCpuTest::eventPool(uint32_t count, ze_event_pool_flags_t flags) {
  ze_event_pool_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr, flags, count};
  ze_event_pool_handle_t pool = nullptr;
  EXPECT_ZE_OK(zeEventPoolCreate(context, &desc, 1, &device, &pool));
  if (pool) later([pool] { EXPECT_ZE_OK(zeEventPoolDestroy(pool)); });
  return pool;
}

ze_event_handle_t ZeCpuTest::event(ze_event_pool_handle_t pool, uint32_t index) {
  ze_event_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, index, ZE_EVENT_SCOPE_FLAG_HOST,
                       ZE_EVENT_SCOPE_FLAG_HOST};
  ze_event_handle_t e = nullptr;
  EXPECT_ZE_OK(zeEventCreate(pool, &desc, &e));
  if (e) later([e] { EXPECT_ZE_OK(zeEventDestroy(e)); });
  return e;
}

ze_module_handle_t ZeCpuTest::kernelsModule() {
  if (!kernels_) kernels_ = module(readBesideProgram("xpurt_ze_cpu_kernels.spv"));
  return kernels_;
}

ze_module_handle_t ZeCpuTest::module(const std::vector<uint8_t> &spirv,
                                     const ze_module_constants_t *constants) {
  ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                        nullptr,
                        ZE_MODULE_FORMAT_IL_SPIRV,
                        spirv.size(),
                        spirv.data(),
                        "",
                        constants};
  ze_module_handle_t m = nullptr;
  ze_module_build_log_handle_t log = nullptr;
  ze_result_t result = zeModuleCreate(context, device, &desc, &m, &log);
  std::string text = takeLog(log);
  EXPECT_EQ(result, ZE_RESULT_SUCCESS) << text;
  if (m) later([m] { EXPECT_ZE_OK(zeModuleDestroy(m)); });
  return m;
}

ze_kernel_handle_t ZeCpuTest::kernel(ze_module_handle_t m, const char *name) {
  ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, name};
  ze_kernel_handle_t k = nullptr;
  EXPECT_ZE_OK(zeKernelCreate(m, &desc, &k));
  if (k) later([k] { EXPECT_ZE_OK(zeKernelDestroy(k)); });
  return k;
}

std::string ZeCpuTest::takeLog(ze_module_build_log_handle_t log) {
  if (!log) return "";
  size_t size = 0;
  EXPECT_ZE_OK(zeModuleBuildLogGetString(log, &size, nullptr));
  std::string text(size, '\0');
  EXPECT_ZE_OK(zeModuleBuildLogGetString(log, &size, text.data()));
  EXPECT_ZE_OK(zeModuleBuildLogDestroy(log));
  if (!text.empty()) text.pop_back();  // the terminating NUL
  return text;
}

ze_result_t ZeCpuTest::await(ze_event_handle_t e) {
  return zeEventHostSynchronize(e, 60'000'000'000ull);
}

}  // namespace xpurt::ze_cpu::test
