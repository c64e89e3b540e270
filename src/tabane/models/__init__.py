"""tabane.models"""
