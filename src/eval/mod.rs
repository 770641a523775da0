//! Evaluation against labeled duplicate pairs: the paper's five values, precision, recall, F1.
