"""The paper's stages, one module per rule file."""
