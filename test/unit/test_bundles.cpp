// engine/bundle: the tar.gz reader and writer, manifests, roots, digests, signatures;
// webhook/plugins: decision-log masking and batching.
#include <doctest/doctest.h>

#include "engine/bundle/bundle.hpp"
#include "engine/bundle/bundle_writer.hpp"
#include "engine/bundle/file_hash.hpp"
#include "engine/bundle/gzip_stream.hpp"
#include "engine/bundle/manifest_file.hpp"
#include "engine/bundle/roots.hpp"
#include "engine/bundle/signatures.hpp"
#include "engine/bundle/tar_reader.hpp"
#include "engine/bundle/tar_writer.hpp"
#include "runtime/json.hpp"
#include "webhook/plugins/decision_logger.hpp"

using namespace gavel;
using namespace gavel::engine::bundle;
using runtime::Value;

namespace {

Value json(std::string_view text) { return runtime::parse_json(text).value; }

std::string archive(std::initializer_list<std::pair<std::string, std::string>> files) {
    TarWriter w;
    for (const auto& [name, bytes] : files) w.add_file(name, bytes);
    return w.finish_gz();
}

// A raw ustar header block with a given type and name (for entries the writer never makes).
std::string header(const std::string& name, char type, std::size_t size, const std::string& link = "") {
    std::string h(512, '\0');
    h.replace(0, name.size(), name);
    std::snprintf(h.data() + 100, 8, "%07o", 0600);
    std::snprintf(h.data() + 124, 12, "%011zo", size);
    h[156] = type;
    h.replace(157, link.size(), link);
    h.replace(257, 6, std::string("ustar\0", 6));
    std::fill(h.begin() + 148, h.begin() + 156, ' ');
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    std::snprintf(h.data() + 148, 8, "%06o", sum);
    h[155] = ' ';
    return h;
}

}  // namespace

TEST_CASE("tar: what the writer writes, the reader reads back (names, long names, bytes)") {
    std::string long_name =
        "/" + std::string(120, 'a') + "/" + std::string(90, 'b') + "/" + std::string(110, 'c') + ".rego";
    auto r =
        read_tar_gz(archive({{"/data.json", "{}"}, {"./x/policy.rego", "package x\n"}, {long_name, "package y\n"}}));
    REQUIRE(r.ok());
    REQUIRE(r.files.size() == 3);
    CHECK(r.files[0].path == "data.json");
    CHECK(r.files[1].path == "x/policy.rego");
    CHECK(r.files[1].bytes == "package x\n");
    CHECK(r.files[2].path == long_name.substr(1));
}

TEST_CASE("tar: traversal, links, devices, truncation, bad checksums and limits are errors") {
    auto entry = [](const std::string& name, char type, const std::string& body = "", const std::string& link = "") {
        std::string t = header(name, type, body.size(), link) + body;
        t.append((512 - body.size() % 512) % 512, '\0');
        return t;
    };
    auto read = [](const std::string& tar, ArchiveLimits limits = {}) {
        return read_tar_gz(gzip_compress(tar + std::string(1024, '\0')), limits);
    };
    CHECK(read(entry("../evil.rego", '0', "x")).error.find("path traversal") != std::string::npos);
    CHECK(read(entry("a/../../evil", '0', "x")).error.find("path traversal") != std::string::npos);
    CHECK(read(entry("data.json", '2', "", "/etc/passwd")).error.find("symbolic link entries are not allowed") !=
          std::string::npos);
    CHECK(read(entry("data.json", '1', "", "x")).error.find("hard link") != std::string::npos);
    CHECK(read(entry("dev", '3')).error.find("device") != std::string::npos);
    CHECK(read(entry("a.rego", '0', "x") + entry("a.rego", '0', "y")).error.find("duplicate entry") !=
          std::string::npos);
    ArchiveLimits small;
    small.max_file_bytes = 4;
    CHECK(read(entry("a.rego", '0', "12345"), small).error ==
          "bundle read failed: bundle file a.rego size (5 bytes) exceeds configured size_limit_bytes (4 bytes)");
    small = {};
    small.max_entries = 1;
    CHECK(read(entry("a", '0', "1") + entry("b", '0', "2"), small).error.find("more than 1 entries") !=
          std::string::npos);
    // An entry announcing more bytes than the archive holds.
    std::string cut = header("big.json", '0', 4096) + std::string(100, 'x');
    CHECK(read_tar_gz(gzip_compress(cut)).error.find("truncated") != std::string::npos);
    std::string bad = entry("a", '0', "1");
    bad[10] ^= 1;  // the checksum no longer matches
    CHECK(read(bad).error.find("checksum") != std::string::npos);
    std::string z = gzip_compress(entry("a", '0', std::string(5000, 'q')));
    CHECK(read_tar_gz(z.substr(0, z.size() / 2)).error.find("gzip: unexpected EOF") != std::string::npos);
    CHECK(read_tar_gz("plain text").error.find("gzip: invalid header") != std::string::npos);
    // A gzip bomb stops at the total limit instead of filling memory.
    ArchiveLimits total;
    total.max_total_bytes = 1 << 20;
    CHECK(read_tar_gz(gzip_compress(entry("big", '0', std::string(2 << 20, '\0'))), total).error ==
          "bundle read failed: bundle files exceed the total size limit (1048576 bytes unpacked)");
}

TEST_CASE("tar: sizes are checked as announced, before inflating; entries skipped count too") {
    auto entry = [](const std::string& name, char type, const std::string& body = "") {
        std::string t = header(name, type, body.size()) + body;
        t.append((512 - body.size() % 512) % 512, '\0');
        return t;
    };
    const std::string end(1024, '\0');
    ArchiveLimits total;
    total.max_total_bytes = 1 << 20;
    std::string half(600 << 10, 'x');
    CHECK(read_tar_gz(gzip_compress(entry("a", '0', half) + entry("b", '0', half) + end), total).error ==
          "bundle read failed: bundle files exceed the total size limit (1048576 bytes unpacked)");
    // Data a directory entry or a skipped file carries is inflated too, so it counts.
    CHECK(read_tar_gz(gzip_compress(entry("d/", '5', half) + entry("b", '0', half) + end), total).error ==
          "bundle read failed: bundle files exceed the total size limit (1048576 bytes unpacked)");
    EntryPolicy skip_all = [](const std::string&, std::uint64_t) { return EntryDecision{EntryAction::Skip, {}}; };
    CHECK(!read_tar_gz(gzip_compress(entry("a", '0', half) + entry("b", '0', half) + end), total, skip_all).ok());
    auto skipped = read_tar_gz(gzip_compress(entry("a", '0', half) + end), total, skip_all);
    CHECK(skipped.ok());
    CHECK(skipped.files.empty());

    // The policy decides from the header alone: an entry announcing 1 GiB that holds
    // nothing gets the policy's error, not a read of what is not there.
    std::string liar = gzip_compress(header("data.json", '0', std::size_t(1) << 30) + std::string(512, '0'));
    EntryPolicy refuse = [](const std::string& path, std::uint64_t size) {
        return EntryDecision{EntryAction::Keep, path + " announces " + std::to_string(size)};
    };
    CHECK(read_tar_gz(liar, {}, refuse).error == "data.json announces 1073741824");
    // Kept, it is read as it arrives: cut short, it is truncated (no 1 GiB buffer first).
    CHECK(read_tar_gz(liar).error == "bundle read failed: entry data.json is truncated (1073741824 bytes announced)");

    // Digested: only the SHA-256 of the bytes stays.
    EntryPolicy digest = [](const std::string&, std::uint64_t) { return EntryDecision{EntryAction::Digest, {}}; };
    auto digested = read_tar_gz(gzip_compress(entry("README.md", '0', "abc") + end), {}, digest);
    REQUIRE(digested.files.size() == 1);
    CHECK(!digested.files[0].kept);
    CHECK(digested.files[0].bytes.empty());
    CHECK(digested.files[0].sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("bundle: files larger than their parsers take are refused from the header, in the parsers' words") {
    BundleReadOptions o;
    auto announce = [](const std::string& name, std::size_t size) {
        return gzip_compress(header(name, '0', size) + std::string(512, '0'));
    };
    CHECK(read_bundle_archive(announce("/data.json", 900u << 20), "t", o).error_text() ==
          "bundle t: bundle load failed on data.json: JSON input too large: 943718400 bytes (limit 268435456)");
    CHECK(read_bundle_archive(announce("/x/data.yaml", 300u << 20), "t", o).error_text() ==
          "bundle t: bundle load failed on x/data.yaml: YAML input too large: 314572800 bytes (limit 268435456)");
    CHECK(read_bundle_archive(announce("/p.rego", 100u << 20), "t", o).error_text() ==
          "bundle t: bundle load failed on p.rego: module is 104857600 bytes, more than the limit of 67108864");
    CHECK(read_bundle_archive(announce("/.manifest", 300u << 20), "t", o).error_text() ==
          "bundle t: bundle load failed on manifest decode: JSON input too large: 314572800 bytes (limit 268435456)");
    // A file the reader does not use is not kept: announced large and cut short, it is truncated.
    CHECK(read_bundle_archive(announce("/blob.bin", 900u << 20), "t", o).error_text() ==
          "bundle t: bundle read failed: entry blob.bin is truncated (943718400 bytes announced)");
}

TEST_CASE("signatures: files the reader does not use are verified by their SHA-256") {
    std::string error;
    std::vector<FileDigest> digests = {{"p.rego", *hash_bytes("package p\n", "SHA-256", error), "SHA-256"},
                                       {"README.md", *hash_bytes("read me", "SHA-256", error), "SHA-256"}};
    SigningConfig sc{"secret", "HS256", ""};
    auto token = sign_files(digests, sc, "default", error);
    REQUIRE(token);
    auto bundle_with = [&](const std::string& readme) {
        TarWriter w;
        w.add_file("/p.rego", "package p\n");
        w.add_file("/README.md", readme);
        w.add_file("/.signatures.json", signatures_json(*token));
        return w.finish_gz();
    };
    VerificationConfig vc;
    vc.public_keys["default"] = KeyConfig{"secret", "HS256", ""};
    BundleReadOptions o;
    o.verification = &vc;
    CHECK(read_bundle_archive(bundle_with("read me"), "t", o).ok());
    CHECK(read_bundle_archive(bundle_with("read me!"), "t", o).error_text() ==
          "bundle t: README.md: digest mismatch (want: " + digests[1].hash +
              ", got: " + *hash_bytes("read me!", "SHA-256", error) + ")");
}

TEST_CASE("manifest: OPA's fields, defaults and type errors") {
    std::string error;
    auto m = parse_manifest(
        R"({"revision":"r1","roots":["a/","/b"],"rego_version":0,"file_rego_versions":{"/v1/*.rego":1},"metadata":{"k":"v"},"other":1})",
        error);
    REQUIRE(m);
    CHECK(m->effective_roots() == std::vector<std::string>{"a", "b"});
    CHECK(m->v0_for("v1/x.rego") == std::optional<bool>(false));
    CHECK(m->v0_for("/legacy/y.rego") == std::optional<bool>(true));
    CHECK(
        manifest_json(*m) ==
        R"({"revision":"r1","roots":["a/","/b"],"rego_version":0,"file_rego_versions":{"/v1/*.rego":1},"metadata":{"k":"v"}})");
    CHECK(!parse_manifest(R"({"revision": 1})", error));
    CHECK(error ==
          "bundle load failed on manifest decode: json: cannot unmarshal number into Go struct field Manifest.revision "
          "of type string");
    CHECK(!parse_manifest(R"({"rego_version": 2})", error));
    Manifest empty;
    CHECK(empty.empty());
    CHECK(empty.effective_roots() == std::vector<std::string>{""});
}

TEST_CASE("roots: containment, overlap and OPA's messages") {
    CHECK(root_paths_contain({"a/b"}, "a/b/c"));
    CHECK(!root_paths_contain({"a/b"}, "a/bc"));
    CHECK(root_paths_contain({""}, "anything"));
    CHECK(*check_manifest_roots({"a", "a/b"}) == "manifest has overlapped roots: 'a' and 'a/b'");
    CHECK(!check_manifest_roots({"a/b", "a/c"}));
    CHECK(*check_data_roots(RootTrie({"a"}), json(R"({"b": 1})")) ==
          "manifest roots [a] do not permit data at path '/b' (hint: check bundle directory structure)");
    CHECK(!check_data_roots(RootTrie({"a/b"}), json(R"({"a": {"b": {"c": 1}}})")));
    CHECK(check_data_roots(RootTrie({"a/b"}), json(R"({"a": {"x": 1}})")).has_value());
    CHECK(*check_bundle_roots_overlap({{"one", {"a"}}, {"two", {"a/b"}}}) ==
          "detected overlapping roots in manifests for these bundles: [one, two] (a overlaps a/b)");
    CHECK(!check_bundle_roots_overlap({{"one", {"a"}}, {"two", {"b"}}}));
    CHECK(check_bundle_roots_overlap({{"one", {""}}, {"two", {"b"}}})->find("specify empty root paths") !=
          std::string::npos);
    CHECK(gavel::engine::bundle::root_paths_overlap("", "b"));
    CHECK(!gavel::engine::bundle::root_paths_overlap("a", "ab"));
}

TEST_CASE("roots: a root's parts, the whole of data having none") {
    using gavel::engine::bundle::path_parts;
    CHECK(path_parts("").empty());
    CHECK(path_parts("kubernetes/admission") == std::vector<std::string>{"kubernetes", "admission"});
    CHECK(path_parts("a") == std::vector<std::string>{"a"});
    CHECK(path_parts("a/") == std::vector<std::string>{"a", ""});
}

TEST_CASE("bundle: reading places data, applies the manifest and checks roots") {
    BundleReadOptions o;
    auto r = read_bundle_archive(archive({{"/a/b/data.json", R"({"x": 1})"},
                                          {"/a/p.rego", "package a\np := 1\n"},
                                          {"/.manifest", R"({"roots": ["a"]})"},
                                          {"/README.md", "ignored"}}),
                                 "t.tar.gz", o);
    REQUIRE(r.ok());
    CHECK(runtime::to_json(r.bundle->data) == R"({"a":{"b":{"x":1}}})");
    REQUIRE(r.bundle->modules.size() == 1);
    CHECK(r.bundle->modules[0].name == "t.tar.gz/a/p.rego");
    CHECK(r.bundle->modules[0].package_path == "a");
    auto bad =
        read_bundle_archive(archive({{"/b.rego", "package b\n"}, {"/.manifest", R"({"roots": ["a"]})"}}), "t", o);
    CHECK(bad.error_text() == "bundle t: manifest roots [a] do not permit 'package b' in module 't/b.rego'");
    auto root_data = read_bundle_archive(archive({{"/data.json", "[1]"}}), "t", o);
    CHECK(root_data.error_text() == "bundle t: bundle load failed on data.json: root value must be object");
}

TEST_CASE("signatures: OPA's digests; sign, verify, tamper, scope, key ids") {
    std::string error;
    // Canonical JSON: key order and whitespace do not change the digest, number literals do.
    CHECK(*hash_file("data.json", R"({"b": 1, "a": [1.50, "x"]})", "SHA-256", error) ==
          *hash_file("x/data.json", R"({"a":[1.50,"x"],"b":1})", "SHA-256", error));
    CHECK(*hash_file("data.json", R"({"a": 1.5})", "SHA-256", error) !=
          *hash_file("data.json", R"({"a": 1.50})", "SHA-256", error));
    CHECK(*hash_file("p.rego", "abc", "SHA-256", error) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(!hash_file("p.rego", "abc", "SHA-3", error));

    Bundle b;
    b.name = "t";
    b.manifest.revision = "r";
    b.manifest.roots = std::vector<std::string>{""};
    b.modules.push_back({"p.rego", "t/p.rego", "package p\n", false, "p"});
    b.data = json(R"({"k": "v"})");
    SigningConfig sc{"secret", "HS256", ""};
    WriteOptions wo{&sc, "default"};
    auto bytes = write_bundle(b, wo, error);
    REQUIRE(bytes);
    VerificationConfig vc;
    vc.public_keys["default"] = KeyConfig{"secret", "HS256", ""};
    BundleReadOptions o;
    o.verification = &vc;
    CHECK(read_bundle_archive(*bytes, "t", o).ok());
    vc.public_keys["default"].key = "wrong";
    CHECK(read_bundle_archive(*bytes, "t", o).error_text() ==
          "bundle t: failed to verify message: failed to match hmac signature");
    vc.public_keys["default"].key = "secret";
    vc.scope = "write";
    CHECK(read_bundle_archive(*bytes, "t", o).error_text() == "bundle t: scope mismatch");
    vc.scope.clear();
    vc.key_id = "other";
    CHECK(read_bundle_archive(*bytes, "t", o).error_text() ==
          "bundle t: verification key corresponding to ID other not found");
    vc.key_id.clear();
    BundleReadOptions none;
    CHECK(read_bundle_archive(*bytes, "t", none).error_text() == "bundle t: verification key not provided");
    // The same files with a changed policy: the digest no longer matches.
    auto files = read_tar_gz(*bytes).files;
    TarWriter w;
    for (auto& f : files) w.add_file("/" + f.path, f.path == "p.rego" ? "package q\n" : f.bytes);
    CHECK(read_bundle_archive(w.finish_gz(), "t", o).error_text().find("p.rego: digest mismatch") != std::string::npos);
    // A signed file missing from the bundle.
    TarWriter fewer;
    for (auto& f : files)
        if (f.path != "p.rego") fewer.add_file("/" + f.path, f.bytes);
    CHECK(read_bundle_archive(fewer.finish_gz(), "t", o)
              .error_text()
              .find("specified in bundle signatures but not found") != std::string::npos);
    CHECK(go_path_match("*.json", "data.json"));
    CHECK(!go_path_match("*.json", "a/data.json"));
}

TEST_CASE("decision logs: OPA's mask rules (remove, upsert, erased/masked lists)") {
    Value event = json(
        R"({"decision_id": "d", "input": {"password": "x", "user": {"name": "a"}, "list": [1, 2, 3]}, "result": true})");
    std::vector<std::string> errors;
    Value masked = gavel::webhook::plugins::apply_mask_rules(
        event,
        json(
            R"(["/input/password", "/input/list/1", {"op": "upsert", "path": "/input/user/name", "value": "***"}, "/input/missing", "/bad/x"])"),
        errors);
    CHECK(runtime::to_json(*masked.find("input")) == R"({"list":[1,3],"user":{"name":"***"}})");
    CHECK(runtime::to_json(*masked.find("erased")) == R"(["/input/password","/input/list/1"])");
    CHECK(runtime::to_json(*masked.find("masked")) == R"(["/input/user/name"])");
    CHECK(errors == std::vector<std::string>{"mask prefix not allowed: bad"});
    Value whole = gavel::webhook::plugins::apply_mask_rules(event, json(R"(["/result"])"), errors);
    CHECK(!whole.find("result"));
}

TEST_CASE("decision logs: uploads are gzip JSON arrays within the size limit") {
    std::vector<std::string> events;
    for (int i = 0; i < 10; ++i)
        events.push_back(R"({"decision_id":")" + std::to_string(i) + R"(","pad":")" + std::string(100, 'x') + "\"}");
    auto chunks = gavel::webhook::plugins::encode_chunks(events, 400);
    CHECK(chunks.size() == 4);  // three events (~130 bytes each) fit in 400 bytes
    std::size_t total = 0;
    for (const auto& c : chunks) {
        std::string plain, error;
        REQUIRE(gzip_decompress(c, 1 << 20, plain, error));
        CHECK(plain.size() <= 400);
        auto arr = json(plain);
        REQUIRE(arr.is_array());
        total += arr.size();
    }
    CHECK(total == 10);
}

TEST_CASE("signatures: the verifier .signatures.json names, as OPA's registry of one (_default)") {
    std::string error;
    auto file = parse_signatures(R"({"signatures": ["a.b.c"], "plugin": "_default"})", error);
    REQUIRE(file);
    CHECK(file->tokens == std::vector<std::string>{"a.b.c"});
    CHECK(file->plugin == "_default");
    CHECK(file->signed_bundle);
    // OPA's zero value is unsigned; an empty list or a plugin alone is not.
    CHECK(!parse_signatures("{}", error)->signed_bundle);
    CHECK(parse_signatures(R"({"signatures": []})", error)->signed_bundle);
    CHECK(parse_signatures(R"({"plugin": "x"})", error)->signed_bundle);
    CHECK(!parse_signatures(R"({"plugin": 1})", error));

    // A bundle gavel signs names the default verifier, as `opa build` does, and reads back.
    Bundle b;
    b.modules.push_back({"p.rego", "t/p.rego", "package p\n", false, "p"});
    SigningConfig sc{"secret", "HS256", ""};
    auto bytes = write_bundle(b, WriteOptions{&sc, "default"}, error);
    REQUIRE(bytes);
    std::string sigs;
    for (const auto& f : read_tar_gz(*bytes).files)
        if (f.path == ".signatures.json") sigs = f.bytes;
    CHECK(sigs.find("\"plugin\": \"_default\"") != std::string::npos);
    VerificationConfig vc;
    vc.public_keys["default"] = KeyConfig{"secret", "HS256", ""};
    BundleReadOptions o;
    o.verification = &vc;
    CHECK(read_bundle_archive(*bytes, "t", o).ok());
    // Another verifier name: OPA's error (it has none registered but its default).
    SignaturesFile custom = *parse_signatures(sigs, error);
    custom.plugin = "custom";
    CHECK(!verify_bundle_signature(custom, vc, error));
    CHECK(error == "no verifier exists under id custom");
    custom.plugin.clear();
    CHECK(verify_bundle_signature(custom, vc, error));
}

TEST_CASE("bundle: a read stops between files once asked to (shutdown)") {
    std::atomic<bool> stop{false};
    BundleReadOptions o;
    o.stop = &stop;
    std::string bytes = archive({{"/a/p.rego", "package a\n"}, {"/a/data.json", "{}"}});
    CHECK(read_bundle_archive(bytes, "t", o).ok());
    stop = true;
    CHECK(read_bundle_archive(bytes, "t", o).error_text() == std::string("bundle t: ") + kReadStopped);
}
