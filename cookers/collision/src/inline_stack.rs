//! The stack of the ray walks: a few entries inline (no allocation for the usual depth),
//! spilling to the heap beyond them.

pub struct InlineStack<T: Copy, const N: usize> {
    inline: [T; N],
    len: usize,
    spill: Vec<T>,
}

impl<T: Copy, const N: usize> InlineStack<T, N> {
    /// `filler` only initializes the inline slots; it is never popped.
    pub fn new(filler: T) -> Self {
        InlineStack {
            inline: [filler; N],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    pub fn push(&mut self, item: T) {
        if self.len < N {
            self.inline[self.len] = item;
            self.len += 1;
        } else {
            self.spill.push(item);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if let Some(item) = self.spill.pop() {
            return Some(item);
        }
        self.len = self.len.checked_sub(1)?;
        Some(self.inline[self.len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_past_its_inline_slots_and_pops_in_reverse() {
        let mut stack = InlineStack::<u32, 2>::new(0);
        for i in 1..=5 {
            stack.push(i);
        }
        let popped: Vec<u32> = std::iter::from_fn(|| stack.pop()).collect();
        assert_eq!(popped, [5, 4, 3, 2, 1]);
    }
}
