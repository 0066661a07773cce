"""What people read: the words and numbers that Discord, the web and the command line share
(SPEC 9.5, 13). The services return data; each front end takes its words from here, so a
word changed here changes in all three."""
