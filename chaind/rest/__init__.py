"""The REST gateway: the SDK's HTTP+JSON paths onto the gRPC query services."""
