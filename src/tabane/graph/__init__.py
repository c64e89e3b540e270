"""tabane.graph"""
