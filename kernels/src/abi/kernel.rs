//! A kernel's entry point together with the type of its parameters, so
//! that the host's launch takes exactly what the kernel reads: a tuple of
//! scalars, pointers and `#[repr(C)]` parameter blocks, passed by value.

use core::ffi::c_void;
use core::marker::PhantomData;

/// Entry point `name`, whose parameters are `P`, a tuple in the kernel's
/// order: `Kernel<(FrontierLevel, u32)>` takes a
/// [`FrontierLevel`](super::frontier::FrontierLevel) block, then a `u32`.
/// The host launches it with a `P` and nothing else, so an argument of
/// another type does not compile; `tests/parameters.rs` checks each `P`
/// against the entry's parameters in the PTX.
pub struct Kernel<P> {
    name: &'static str,
    parameters: PhantomData<fn(P)>,
}

impl<P> Kernel<P> {
    /// The entry point `name`, taking `P`.
    pub const fn new(name: &'static str) -> Kernel<P> {
        Kernel {
            name,
            parameters: PhantomData,
        }
    }

    /// Its name in the PTX.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<P> Clone for Kernel<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Kernel<P> {}

/// A kernel's parameters: a tuple of values, each passed by value.
pub trait Parameters {
    /// Each parameter's size and alignment in bytes, in order.
    const LAYOUT: &'static [(usize, usize)];

    /// Calls `launch` with the address of each parameter, in order, as the
    /// driver's launch takes them (it copies the values).
    fn with_addresses<Returned>(
        &mut self,
        launch: impl FnOnce(&mut [*mut c_void]) -> Returned,
    ) -> Returned;
}

/// [`Parameters`] for the tuple of the given values, then for each shorter
/// tuple, dropping one value at a time from the front.
macro_rules! tuple_parameters {
    ($($value:ident: $type:ident),+) => {
        impl<$($type: Copy),+> Parameters for ($($type,)+) {
            const LAYOUT: &'static [(usize, usize)] =
                &[$((size_of::<$type>(), align_of::<$type>())),+];

            fn with_addresses<Returned>(
                &mut self,
                launch: impl FnOnce(&mut [*mut c_void]) -> Returned,
            ) -> Returned {
                let ($($value,)+) = self;
                launch(&mut [$(($value as *mut $type).cast::<c_void>()),+])
            }
        }

        tuple_parameters!(@shorter $($value: $type),+);
    };
    (@shorter $dropped:ident: $dropped_type:ident) => {};
    (@shorter $dropped:ident: $dropped_type:ident, $($value:ident: $type:ident),+) => {
        tuple_parameters!($($value: $type),+);
    };
}

tuple_parameters!(a: A, b: B, c: C, d: D, e: E, f: F, g: G, h: H, i: I, j: J, k: K, l: L, m: M, n: N, o: O, p: P, q: Q, r: R, s: S);

/// Declares a module's kernel entry points, each a [`Kernel`] constant
/// written as it would be without the macro, and `KERNELS`, their names,
/// from which [`KERNEL_NAMES`](super::KERNEL_NAMES) is gathered: an entry
/// point declared here is in that list without a second line anywhere.
macro_rules! entry_points {
    ($(
        $(#[$attribute:meta])*
        pub const $entry:ident: Kernel<$parameters:ty> = Kernel::new($name:literal);
    )+) => {
        $(
            $(#[$attribute])*
            pub const $entry: $crate::abi::Kernel<$parameters> = $crate::abi::Kernel::new($name);
        )+

        /// The names of every entry point this module declares.
        pub const KERNELS: &[&str] = &[$($entry.name()),+];
    };
}
pub(crate) use entry_points;

/// Gives a parameter block `in_global`, which marks the listed address
/// fields as global memory ([`gpu::global`](crate::gpu::global)), as a
/// kernel's pointer parameters are: loads, stores and atomics through them
/// are then global ones, not generic. An address that may be null is left
/// out of the list (`global` traps on one outside global memory).
macro_rules! in_global {
    ($block:ident { $($address:ident),+ $(,)? }) => {
        #[cfg(target_arch = "nvptx64")]
        impl $block {
            /// The block with its addresses marked as global memory.
            #[inline(always)]
            #[allow(clippy::needless_update)]
            pub fn in_global(self) -> $block {
                use $crate::gpu::GlobalAddress;
                $block {
                    $($address: self.$address.in_global(),)+
                    ..self
                }
            }
        }
    };
}
pub(crate) use in_global;
