//! Generates the gRPC server code from terrace-plugin's protocol
//! definitions (read in place, so the client and server can never drift
//! apart) and from this crate's own definitions of the two go-plugin
//! services the client side never calls: gRPC health and the broker.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let shared = "../terrace-plugin/proto";
    for file in ["tfplugin5.proto", "tfplugin6.proto", "go_plugin.proto"] {
        println!("cargo:rerun-if-changed={shared}/{file}");
    }
    for file in ["health.proto", "grpc_broker.proto"] {
        println!("cargo:rerun-if-changed=proto/{file}");
    }
    let descriptors = protox::compile(["tfplugin5.proto", "tfplugin6.proto"], [shared])?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        .build_transport(false)
        .compile_fds(descriptors)?;
    // go-plugin's services, with clients too (the tests call them). The
    // broker shares go_plugin.proto's package, and a package is generated
    // as one file, so they are compiled together.
    let descriptors = protox::compile(
        ["go_plugin.proto", "grpc_broker.proto", "health.proto"],
        [shared, "proto"],
    )?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .build_transport(false)
        .compile_fds(descriptors)?;
    Ok(())
}
