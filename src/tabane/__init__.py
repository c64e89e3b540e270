"""tabane (束ね): grounded memory for LLM agents."""

__version__ = "0.1.0"
