/// V8's `Math.cos` (fdlibm 5.3, base/ieee754.cc) for 0 to 7 pi: glibc's `cos` differs in the last bit, which moves
/// terms of exactly 7.5 and put 5 of the 11 reference vectors one nibble off.
enum ReferenceCosine {
    static func cos(_ x: Double) -> Double {
        let t = abs(x)  // cos is even; fdlibm's result for -x is the same bits
        let high = highWord(t)
        if high <= 0x3fe9_21fb { return kernelCos(t, 0) }  // |x| <= pi/4
        guard high < 0x7ff0_0000 else { return x - x }  // inf or NaN
        let (n, y0, y1) = remainderPiOverTwo(t)
        switch n & 3 {
        case 0: return kernelCos(y0, y1)
        case 1: return -kernelSin(y0, y1)
        case 2: return -kernelCos(y0, y1)
        default: return kernelSin(y0, y1)
        }
    }

    private static func highWord(_ x: Double) -> UInt32 {
        UInt32(truncatingIfNeeded: x.bitPattern >> 32) & 0x7fff_ffff
    }

    private static func kernelCos(_ x: Double, _ y: Double) -> Double {
        let c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03
        let c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07
        let c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11
        let ix = highWord(x)
        if ix < 0x3e40_0000 && Int(x) == 0 { return 1 }  // |x| < 2^-27
        let z = x * x
        let r = z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))))
        if ix < 0x3fd3_3333 { return 1 - (0.5 * z - (z * r - x * y)) }  // |x| < 0.3
        let qx = ix > 0x3fe9_0000 ? 0.28125 : Double(bitPattern: UInt64(ix - 0x0020_0000) << 32)
        let hz = 0.5 * z - qx
        let a = 1 - qx
        return a - (hz - (z * r - x * y))
    }

    private static func kernelSin(_ x: Double, _ y: Double) -> Double {
        let s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03
        let s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06
        let s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10
        if highWord(x) < 0x3e40_0000 && Int(x) == 0 { return x }  // |x| < 2^-27
        let z = x * x
        let v = z * x
        let r = s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)))
        return x - ((z * (0.5 * y - v * r) - y) - v * s1)
    }

    /// x (0 < x < 2^19 pi/2) as n pi/2 + y0 + y1: fdlibm's __ieee754_rem_pio2 for these sizes.
    private static func remainderPiOverTwo(_ x: Double) -> (Int, Double, Double) {
        let pio2_1 = 1.57079632673412561417e+00, pio2_1t = 6.07710050650619224932e-11
        let pio2_2 = 6.07710050630396597660e-11, pio2_2t = 2.02226624879595063154e-21
        let pio2_3 = 2.02226624871116645580e-21, pio2_3t = 8.47842766036889956997e-32
        let ix = highWord(x)
        precondition(ix <= 0x4139_21fb, "ReferenceCosine takes arguments below 2^19 pi/2")
        if ix < 0x4002_d97c {  // |x| < 3pi/4: n = 1
            var z = x - pio2_1
            if ix != 0x3ff9_21fb {
                let y0 = z - pio2_1t
                return (1, y0, (z - y0) - pio2_1t)
            }
            z -= pio2_2  // near pi/2: 33 + 33 + 53 bits of pi
            let y0 = z - pio2_2t
            return (1, y0, (z - y0) - pio2_2t)
        }
        let n = Int(x * 6.36619772367581382433e-01 + 0.5)
        let fn = Double(n)
        var r = x - fn * pio2_1
        var w = fn * pio2_1t
        var y0 = r - w
        if n >= 32 || ix == quarterTurnHighWords[n - 1] {  // cancellation possible
            let j = Int(ix >> 20)
            if j - Int((highWord(y0) >> 20) & 0x7ff) > 16 {  // second iteration, good to 118 bits
                var t = r
                w = fn * pio2_2
                r = t - w
                w = fn * pio2_2t - ((t - r) - w)
                y0 = r - w
                if j - Int((highWord(y0) >> 20) & 0x7ff) > 49 {  // third, 151 bits
                    t = r
                    w = fn * pio2_3
                    r = t - w
                    w = fn * pio2_3t - ((t - r) - w)
                    y0 = r - w
                }
            }
        }
        return (n, y0, (r - y0) - w)
    }

    /// High words of n pi/2 for n = 1...32 (fdlibm's npio2_hw): where cancellation is possible.
    private static let quarterTurnHighWords: [UInt32] = [
        0x3FF9_21FB, 0x4009_21FB, 0x4012_D97C, 0x4019_21FB, 0x401F_6A7A, 0x4022_D97C,
        0x4025_FDBB, 0x4029_21FB, 0x402C_463A, 0x402F_6A7A, 0x4031_475C, 0x4032_D97C,
        0x4034_6B9C, 0x4035_FDBB, 0x4037_8FDB, 0x4039_21FB, 0x403A_B41B, 0x403C_463A,
        0x403D_D85A, 0x403F_6A7A, 0x4040_7E4C, 0x4041_475C, 0x4042_106C, 0x4042_D97C,
        0x4043_A28C, 0x4044_6B9C, 0x4045_34AC, 0x4045_FDBB, 0x4046_C6CB, 0x4047_8FDB,
        0x4048_58EB, 0x4049_21FB,
    ]
}
