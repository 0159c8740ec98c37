//! The stack of the ray walks: a few entries inline (no allocation for the usual depth),
//! spilling to the heap beyond them.

use arrayvec::ArrayVec;

pub struct InlineStack<T, const N: usize> {
    inline: ArrayVec<T, N>,
    spill: Vec<T>,
}

impl<T, const N: usize> InlineStack<T, N> {
    pub fn new() -> Self {
        InlineStack {
            inline: ArrayVec::new(),
            spill: Vec::new(),
        }
    }

    #[inline]
    pub fn push(&mut self, item: T) {
        if let Err(full) = self.inline.try_push(item) {
            self.spill.push(full.element());
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.spill.pop().or_else(|| self.inline.pop())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_past_its_inline_slots_and_pops_in_reverse() {
        let mut stack = InlineStack::<u32, 2>::new();
        for i in 1..=5 {
            stack.push(i);
        }
        let popped: Vec<u32> = std::iter::from_fn(|| stack.pop()).collect();
        assert_eq!(popped, [5, 4, 3, 2, 1]);
    }
}
