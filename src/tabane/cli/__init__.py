"""tabane.cli"""
