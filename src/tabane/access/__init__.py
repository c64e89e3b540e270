"""Users, scopes, grants and principals."""
