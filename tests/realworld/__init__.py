"""The real recorded provider streams of ``../shared/fixtures/realworld`` (see its README): a
loader that fails loudly when the folder is missing, and the measure of what the inspector
shows of them against their ground truth."""
