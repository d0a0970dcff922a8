// One answer the protocol loop renders for a reader only when one asks for it: /metrics, /readyz
// and each DPDK telemetry endpoint. A request that finds the last render older than `fresh_ns`
// before it posts one render job (one in flight at a time) and waits for it; a render at most
// `fresh_ns` older than the request is served as it is. So nothing is rendered while nobody
// reads, each endpoint is its own short job, and a hundred scrapers in a burst cost one render.
// Management thread only (the job's work runs on the protocol loop).
//
//   auto metrics = std::make_shared<RenderOnDemand<std::string>>("render /metrics", render,
//   publish); if (metrics->wait(jobs, asked_ns, fresh_ns)) return;  // not yet: asked again after
//   the job
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "common/clock.hpp"
#include "common/job_queue.hpp"

namespace braid::control {

template <typename Result>
class RenderOnDemand : public std::enable_shared_from_this<RenderOnDemand<Result>> {
 public:
  using Render = std::function<Result()>;                                           // protocol loop
  using Publish = std::function<void(Result&& result, std::uint64_t rendered_ns)>;  // management

  RenderOnDemand(std::string kind, Render render, Publish publish)
      : kind_(std::move(kind)), render_(std::move(render)), publish_(std::move(publish)) {}

  // True while a request made at `asked_ns` has nothing recent enough (the last render began
  // more than `fresh_ns` before it): a render job is on its way, posted now unless one already
  // was. False when the last render may be served.
  bool wait(JobQueue& jobs, std::uint64_t asked_ns, std::uint64_t fresh_ns) {
    if (rendered_ns_ != 0 && rendered_ns_ + fresh_ns >= asked_ns) return false;
    if (in_flight_) return true;
    auto result = std::make_shared<Result>();
    auto started_ns = std::make_shared<std::uint64_t>(0);
    auto job = std::make_unique<Job>();
    job->kind = kind_;
    job->posted_ns = monotonic_ns();
    job->work = [self = this->shared_from_this(), result, started_ns] {
      *started_ns = monotonic_ns();
      *result = self->render_();
    };
    job->done = [self = this->shared_from_this(), result, started_ns] {
      self->in_flight_ = false;
      self->rendered_ns_ = *started_ns;
      self->publish_(std::move(*result), *started_ns);
    };
    in_flight_ = jobs.post(std::move(job));  // full: the request times out and is served as is
    return true;
  }
  // Before the protocol loop runs (nothing else renders then): a first answer for requests that
  // come while the loop cannot render.
  void render_here() {
    const std::uint64_t started_ns = monotonic_ns();
    Result result = render_();
    rendered_ns_ = started_ns;
    publish_(std::move(result), started_ns);
  }
  std::uint64_t rendered_ns() const { return rendered_ns_; }  // 0: never

 private:
  std::string kind_;
  Render render_;
  Publish publish_;
  std::uint64_t rendered_ns_ = 0;
  bool in_flight_ = false;
};

}  // namespace braid::control
