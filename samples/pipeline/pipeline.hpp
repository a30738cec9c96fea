// Chunked copy/compute overlap, after the oneAPI GPU Optimization Guide's "Asynchronous and
// Overlapping Data Transfers": each chunk is copied to the device, transformed by a kernel and
// copied back, four ways. Shared by samples/pipeline and bench/pipeline_bench.cpp.
#pragma once

#include <xpurt/xpurt.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace pipeline {

struct Config {
  size_t chunks = 10;
  size_t chunkElements = size_t{1} << 22;  // 16 MiB of floats per chunk; a multiple of 4
  int iterations = 4;
};

// What the kernel computes for one element, on the host.
inline float reference(float x, int iterations) {
  float acc = 0.0f;
  for (int k = 0; k < iterations; ++k)
    acc = std::fma(acc, 0.999f, x + static_cast<float>(k) * 0.001f);
  return acc;
}

class Pipeline {
 public:
  Pipeline(xpurt::Device &device, const Config &config)
      : device_(device),
        config_(config),
        input_(config.chunks * config.chunkElements),
        output_(input_.size()),
        in_(device, input_.data(), bytes(input_.size())),
        out_(device, output_.data(), bytes(output_.size())),
        module_(device, "pipeline"),
        kernel_(module_, "transform") {
    for (size_t i = 0; i < input_.size(); ++i) input_[i] = static_cast<float>(i % 1000) * 0.01f;
  }

  // The views alias input_ and output_: a copy would point into another object's vectors.
  Pipeline(const Pipeline &) = delete;
  Pipeline &operator=(const Pipeline &) = delete;

  // One in-order queue: copy in, kernel, copy out, chunk after chunk. No overlap.
  void inOrder() { inOrderMeasured(nullptr, nullptr); }

  // The in-order way, with profiling on: how long the copies and the kernels take on their own.
  void inOrderMeasured(double *copySeconds, double *computeSeconds) {
    xpurt::TaskQueue queue(device_, {xpurt::Engine::Any, false, true});
    std::vector<xpurt::Future> copies, kernels;
    for (size_t c = 0; c < config_.chunks; ++c) {
      copies.push_back(queue.copyToDevice(in_, offset(c), chunkBytes()));
      kernels.push_back(launch(queue, c));
      copies.push_back(queue.copyToHost(out_, offset(c), chunkBytes()));
    }
    queue.sync();
    if (copySeconds) *copySeconds = seconds(copies);
    if (computeSeconds) *computeSeconds = seconds(kernels);
  }

  // A copy queue and a compute queue: each kernel waits for its chunk's copy in, each copy out
  // for its chunk's kernel. The copy queue takes the next chunk in before the last one out.
  void copyAndComputeQueues() {
    xpurt::TaskQueue copy(device_, {xpurt::Engine::Copy});
    xpurt::TaskQueue compute(device_, {xpurt::Engine::Compute});
    std::vector<xpurt::Future> copiedIn;
    copiedIn.push_back(copy.copyToDevice(in_, offset(0), chunkBytes()));
    for (size_t c = 0; c < config_.chunks; ++c) {
      compute.wait(copiedIn[c]);
      xpurt::Future computed = launch(compute, c);
      if (c + 1 < config_.chunks)
        copiedIn.push_back(copy.copyToDevice(in_, offset(c + 1), chunkBytes()));
      copy.wait(computed);
      copy.copyToHost(out_, offset(c), chunkBytes());
    }
    copy.sync();
    compute.sync();
  }

  // One out-of-order queue: every command declares what it touches, the queue works out the
  // rest and runs copies on its copy engine beside kernels on its compute engine.
  void outOfOrder() {
    xpurt::TaskQueue queue(device_, {xpurt::Engine::Any, true});
    for (size_t c = 0; c < config_.chunks; ++c) {
      queue.copyToDevice(in_, offset(c), chunkBytes());
      launch(queue, c);
      queue.copyToHost(out_, offset(c), chunkBytes());
    }
    queue.sync();
  }

  // The out-of-order way's commands recorded once as a graph, ordered by their declared
  // accesses alone, and instantiated for the device. Built at the first call; later calls
  // return it, so replays can be timed apart from building.
  const xpurt::GraphExec &instantiateGraph() {
    if (exec_) return exec_;
    xpurt::Graph recorded;
    for (size_t c = 0; c < config_.chunks; ++c) {
      recorded.copyToDevice(in_, offset(c), chunkBytes());
      launch(recorded, c);
      recorded.copyToHost(out_, offset(c), chunkBytes());
    }
    exec_ = recorded.instantiate(device_);
    return exec_;
  }

  // Replays the graph (building it first if need be) and waits for it. Every device spreads the
  // graph's copies and kernels over its engines itself, whatever the queue.
  void graph() {
    const xpurt::GraphExec &exec = instantiateGraph();
    xpurt::TaskQueue queue(device_, {xpurt::Engine::Any, true});
    queue.launch(exec);
    queue.sync();
  }

  // Poisons the results on both sides, so a way that skips work cannot pass on what an
  // earlier way left behind.
  void reset() {
    xpurt::TaskQueue queue(device_);
    queue.fill(out_, -1.0f);
    queue.sync();
    std::fill(output_.begin(), output_.end(), -2.0f);
  }

  // The first wrong element as a message, or "" if every checked element is right.
  std::string check() const {
    for (size_t i = 0; i < output_.size(); i += 127) {
      if (std::fabs(output_[i] - reference(input_[i], config_.iterations)) > 1e-3f)
        return "element " + std::to_string(i) + " is " + std::to_string(output_[i]) +
               ", expected " + std::to_string(reference(input_[i], config_.iterations));
    }
    size_t last = output_.size() - 1;
    if (std::fabs(output_[last] - reference(input_[last], config_.iterations)) > 1e-3f)
      return "the last element is wrong";
    return "";
  }

 private:
  static size_t bytes(size_t elements) { return elements * sizeof(float); }
  size_t chunkBytes() const { return bytes(config_.chunkElements); }
  size_t offset(size_t chunk) const { return chunk * chunkBytes(); }

  xpurt::Future launch(xpurt::TaskQueue &queue, size_t chunk) {
    return queue.launch(kernel_, xpurt::Range(config_.chunkElements / 4),
                        {xpurt::Arg::read(in_, offset(chunk), chunkBytes()),
                         xpurt::Arg::write(out_, offset(chunk), chunkBytes()), config_.iterations});
  }
  // The same launch as a graph node: the declared ranges order it after its chunk's copy in
  // and before its copy out.
  xpurt::GraphNode launch(xpurt::Graph &recorded, size_t chunk) {
    return recorded.launch(
        kernel_, xpurt::Range(config_.chunkElements / 4),
        {xpurt::Arg::read(in_, offset(chunk), chunkBytes()),
         xpurt::Arg::write(out_, offset(chunk), chunkBytes()), config_.iterations});
  }

  static double seconds(const std::vector<xpurt::Future> &futures) {
    uint64_t ns = 0;
    for (const xpurt::Future &f : futures) ns += f.timeNs();
    return static_cast<double>(ns) * 1e-9;
  }

  xpurt::Device &device_;
  Config config_;
  std::vector<float> input_, output_;
  xpurt::MemoryView in_, out_;
  xpurt::Module module_;
  xpurt::Kernel kernel_;
  xpurt::GraphExec exec_;  // empty until instantiateGraph()
};

}  // namespace pipeline
