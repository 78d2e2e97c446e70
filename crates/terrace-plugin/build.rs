//! Compiles the protocol definitions in `proto/` with protox (a protobuf
//! compiler in Rust, so no system `protoc` is needed) and generates the
//! gRPC client code with tonic.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["tfplugin5.proto", "tfplugin6.proto", "go_plugin.proto"];
    for file in files {
        println!("cargo:rerun-if-changed=proto/{file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_transport(false)
        .compile_fds(descriptors)?;
    Ok(())
}
