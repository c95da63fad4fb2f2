#include "enforcer/net/factory_client.h"

#include "util/unix_socket.h"

namespace cordon::enforcer::net {

FactoryClient::FactoryClient(boost::asio::io_context& io, util::Fd channel) : channel_(io) {
  channel_.assign(channel.release());
}

void FactoryClient::request(const char* kind, Done done) {
  if (!channel_.is_open() || !util::send_message(channel_.native_handle(), kind))
    return done(util::Fd());
  pending_.push_back(std::move(done));
  if (pending_.size() == 1) wait();
}

void FactoryClient::wait() {
  channel_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                      [this](boost::system::error_code ec) {
                        if (ec) return fail_all();
                        auto msg = util::receive_message(channel_.native_handle());
                        if (!msg || msg->data.empty()) {
                          close();
                          return fail_all();
                        }
                        Done done = std::move(pending_.front());
                        pending_.pop_front();
                        if (!pending_.empty()) wait();
                        done(std::move(msg->fd));
                      });
}

void FactoryClient::fail_all() {
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& done : pending) done(util::Fd());
}

void FactoryClient::close() {
  boost::system::error_code ec;
  channel_.close(ec);
}

}  // namespace cordon::enforcer::net
