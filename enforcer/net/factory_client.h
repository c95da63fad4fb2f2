// The proxy's end of the socket factory's channel (socket_factory.h):
// requests go out in order and are answered in order, on the event loop.
#pragma once

#include <deque>
#include <functional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include "util/fd.h"

namespace cordon::enforcer::net {

class FactoryClient {
 public:
  // An invalid descriptor when the factory could not make one or is gone.
  using Done = std::function<void(util::Fd)>;
  FactoryClient(boost::asio::io_context& io, util::Fd channel);
  // `kind` is one of the kFactory* requests.
  void request(const char* kind, Done done);
  void close();

 private:
  void wait();
  void fail_all();
  boost::asio::posix::stream_descriptor channel_;
  std::deque<Done> pending_;
};

}  // namespace cordon::enforcer::net
