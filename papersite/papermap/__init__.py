"""The paper map: every paper placed in 2-D so that papers about the same thing sit together.

    layout.py      TF-IDF, truncated SVD and a force layout of landmark papers; the rest placed among them
    files.py       map/points.json, what the map page draws
"""
