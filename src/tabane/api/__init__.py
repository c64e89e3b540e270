"""tabane.api"""
