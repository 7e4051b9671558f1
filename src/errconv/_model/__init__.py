"""The model: `Fault` and its parts, the errors, the limits, Retry-After and the detail
codec. It knows no wire format and imports nothing of errconv above it (the public
`errconv.codes` and `errconv.details` belong to it too)."""
