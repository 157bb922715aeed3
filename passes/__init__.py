"""The dgrad recognition and rewrite pass over IREE linalg-on-tensors IR."""
