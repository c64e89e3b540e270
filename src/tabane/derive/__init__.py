"""tabane.derive"""
