"""The live upload of board results: versions, targets, a durable queue and its delivery."""
