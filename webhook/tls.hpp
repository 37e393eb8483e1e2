#pragma once
// TLS for the server: OpenSSL contexts (TLS 1.2+, optional client verification),
// a self-signed certificate made at start when none is given, and certificate
// rotation: when the files change on disk a new context is built and used for
// new connections; open connections keep the context they started with.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace boost::asio::ssl {
class context;
}

namespace gavel::webhook {

struct TlsOptions {
    std::string cert_file;       // PEM chain; empty: self-signed
    std::string key_file;        // PEM key
    std::string client_ca_file;  // non-empty: clients must present a certificate signed by it
    std::vector<std::string> sans = {"localhost", "127.0.0.1"};  // for the self-signed certificate
};

struct KeyPair {
    std::string cert_pem;
    std::string key_pem;
    bool operator==(const KeyPair&) const = default;
};

// A self-signed certificate (EC P-256, one year, CA:TRUE so it can serve as the
// webhook's caBundle) for the given DNS names and IP addresses.
bool make_self_signed(const std::vector<std::string>& sans, KeyPair& out, std::string& error);

class TlsContexts {
public:
    // Reads the files (or makes the self-signed pair) and builds the first context.
    static std::shared_ptr<TlsContexts> create(TlsOptions options, std::string& error);

    std::shared_ptr<boost::asio::ssl::context> current() const;
    // The serving certificate, PEM (what --ca-dump writes for a self-signed one).
    std::string certificate_pem() const;
    bool self_signed() const { return options_.cert_file.empty(); }

    // Re-reads the certificate, key and client CA files; when their content changed,
    // builds a new context. Returns false with `error` when the new files are unusable
    // (the old context stays); `changed` tells whether a new context is in use.
    bool reload_if_changed(bool& changed, std::string& error);

private:
    struct Material {
        KeyPair pair;
        std::string client_ca_pem;
        bool operator==(const Material&) const = default;
    };
    bool read_material(Material& out, std::string& error) const;
    static std::shared_ptr<boost::asio::ssl::context> build(const Material& m, std::string& error);

    TlsOptions options_;
    mutable std::mutex mutex_;
    Material material_;
    std::shared_ptr<boost::asio::ssl::context> context_;
};

}  // namespace gavel::webhook
