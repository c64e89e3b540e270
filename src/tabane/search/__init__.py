"""tabane.search"""
