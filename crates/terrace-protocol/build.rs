//! Compiles the protocol definitions in `proto/` with protox (a protobuf
//! compiler in Rust, so no system `protoc` is needed) and generates the
//! gRPC code with tonic: clients with the `client` feature, servers with
//! `server`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "tfplugin5.proto",
        "tfplugin6.proto",
        "go_plugin.proto",
        "grpc_broker.proto",
        "health.proto",
    ];
    for file in files {
        println!("cargo:rerun-if-changed=proto/{file}");
    }
    let client = std::env::var_os("CARGO_FEATURE_CLIENT").is_some();
    let server = std::env::var_os("CARGO_FEATURE_SERVER").is_some();
    let descriptors = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure()
        .build_client(client)
        .build_server(server)
        .build_transport(false)
        .compile_fds(descriptors)?;
    Ok(())
}
