"""Video and audio: probing, speech recognition in a child process, scenes and keyframes."""
