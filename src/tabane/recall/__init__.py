"""tabane.recall"""
