#include "opencl_host.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace xpurt::bench {

SharedMemory::SharedMemory(size_t bytes) : bytes_(bytes) {
  fd_ = memfd_create("xpurt_bench", MFD_CLOEXEC);
  if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
    throw std::system_error(errno, std::generic_category(), "memfd_create/ftruncate");
  data_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (data_ == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
}

SharedMemory::~SharedMemory() {
  if (data_ && data_ != MAP_FAILED) munmap(data_, bytes_);
  if (fd_ >= 0) close(fd_);
}

}  // namespace xpurt::bench
