"""tabane.memory"""
