"""The pipeline: decode, encode, convert, losses and detect over the registry
(`api.py`), and the seams over the `http` and `grpc` codecs: `from_http`/`to_http`
(`http.py`), the error kinds they take (`edge.py`), Accept negotiation (`negotiate.py`)."""
