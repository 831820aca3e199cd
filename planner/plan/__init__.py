"""The plan language: YAML with positions (source), the versioned schema, templating and sweeps, and the loader
that turns a plan file into the typed model (render -> validate -> model)."""
