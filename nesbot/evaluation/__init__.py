"""What a board is worth: weights files, the built-in evaluators, the surface table."""
