// Connections over TLS over a unix socket: one of Session's four instantiations (see server_impl.hpp).
#include "webhook/server_session.hpp"

namespace gavel::webhook {

template void start_session<Server::Impl::local, true>(Server::Impl::local::socket, std::shared_ptr<asio::ssl::context>,
                                              std::shared_ptr<Server::Impl>);

}  // namespace gavel::webhook
