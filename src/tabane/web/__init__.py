"""tabane.web"""
