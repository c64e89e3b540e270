"""tabane.jobs"""
