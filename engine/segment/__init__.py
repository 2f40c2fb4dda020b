"""Segmenting: neighbouring chunks into topics.

`merge` is the seed's merge loop over chunk vectors, `segmenter` the topic
segmenter, `docstruct` and `wordseg` what a markdown file's structure and words
say about where a document starts, `requests` what a user's message asks for.
"""
