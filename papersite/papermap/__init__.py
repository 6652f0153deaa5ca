"""papermap"""
