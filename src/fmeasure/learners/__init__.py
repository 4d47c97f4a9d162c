"""scikit-learn-style multi-label learners whose predictions maximise the instance-wise F-measure."""
