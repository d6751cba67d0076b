"""Go's encoding/json wording, which geth and CometBFT send to clients as it is."""


def json_type(value):
    """Go's name for a JSON value's kind in "json: cannot unmarshal <kind> into ..." errors."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"
