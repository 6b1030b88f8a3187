//! The validation rules of spec §9 as findings.

use super::Anim;
use crate::registry::Finding;

pub fn check(_a: &Anim) -> Vec<Finding> {
    Vec::new()
}
