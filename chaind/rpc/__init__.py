"""The faces: transports that speak a wire format and call the services in api/."""
