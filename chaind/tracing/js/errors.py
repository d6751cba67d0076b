"""The error a tracer reports instead of a result; the RPC layer answers it as JSON-RPC -32000.

Its message is the text geth gives for the same failure.
"""


class TracerError(Exception):
    """A tracer that could not be built or failed while tracing; str(e) is geth's wording."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
