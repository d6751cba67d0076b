"""Tracing: replaying txs with a tracer attached (struct logs, JavaScript and native tracers)."""
