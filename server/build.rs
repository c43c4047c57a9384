//! Compiles `proto/causim.proto` with `protox`, a protobuf compiler written
//! in Rust: building the server needs no system `protoc`, only cargo.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/causim.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(descriptors)?;
    Ok(())
}
