// Connections over TLS, on TCP and on unix sockets: two of Session's four instantiations
// (see server_impl.hpp).
#include "webhook/server_session.hpp"

namespace gavel::webhook {

template void start_session<tcp, true>(ConnectionSocket<tcp>, std::shared_ptr<asio::ssl::context>,
                                       std::shared_ptr<Server::Impl>);
template void start_session<Server::Impl::local, true>(ConnectionSocket<Server::Impl::local>,
                                                       std::shared_ptr<asio::ssl::context>,
                                                       std::shared_ptr<Server::Impl>);

}  // namespace gavel::webhook
